package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The HTTP/2 stream mapping (docs/http2-stream-mapping.md) as one {@link DuplexTransport}: the
 * engine of one RSocket connection writes and reads RSocket frames as on any byte-stream transport,
 * and this class carries each RSocket stream on an HTTP/2 stream of its own.
 *
 * <p><b>Outbound.</b> The engine's batches ({@link Framing#LENGTH_PREFIXED}) are cut at frame
 * boundaries without copying: each frame, u24 length included, becomes DATA on its stream (netty's
 * flow controller joins a stream's DATA into frames as large as the peer allows). A client opens an
 * HTTP/2 stream (HEADERS) for each request frame; a server answers {@code :status 200} before its
 * first DATA. CANCEL is RST_STREAM; the end of a stream is END_STREAM (client) or the {@code
 * rsocket-status} trailers (server, which also carry an ERROR); KEEPALIVE is PING; a connection
 * ERROR is GOAWAY. Frames the mapping cannot carry (METADATA_PUSH, LEASE, requests from the server)
 * never reach the wire: a request the server starts is answered REJECTED to its own engine.
 *
 * <p><b>Inbound.</b> DATA is cut at the u24 lengths (a frame cut across DATA frames is held until
 * whole, at most the engine's max frame size); each frame gets the local stream id and goes to the
 * engine. Trailers, resets, PING acks and GOAWAY become the frames they stand for.
 *
 * <p><b>Flow control.</b> The engine's request-n bounds what a peer sends, so inbound DATA is
 * given back to flow control as soon as it is delivered (netty then sends WINDOW_UPDATE once half
 * a window is used), except while the engine has paused reading: then it is given back on resume,
 * so the peer's windows close. Outbound, bytes handed to HTTP/2 and not yet written to the socket
 * (queued behind a closed window, say) are counted: above the engine's limit the transport is
 * unwritable, which pauses the engine's producers, and {@link #outboundProgress()} lets the engine
 * close a connection whose peer never opens its window.
 *
 * <p><b>Parts.</b> This class keeps the connection's streams and does what each frame means; the
 * jobs around it are their own classes: {@link OutboundCutter} cuts the engine's batches into
 * runs of DATA, {@link StreamRules} holds the per-stream state rules (client and server), {@link
 * InboundReassembler} cuts DATA at the u24 lengths and holds unfinished frames, and {@link
 * MappingConnectionEvents} turns PING, GOAWAY and the channel's close into the engine's frames.
 *
 * <p><b>Threads.</b> Everything runs on the channel's event loop.
 */
public final class StreamMapping implements DuplexTransport {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(StreamMapping.class);
  /** What the outbound count takes the fixed answer HEADERS for. */
  private static final int RESPONSE_HEADERS_SIZE = OutboundBytes.headers(StreamRules.RESPONSE_HEADERS);
  private static final int TRAILERS_OK_SIZE = OutboundBytes.headers(StreamRules.TRAILERS_OK);

  /** What a client's request HEADERS need besides the path. */
  public record ClientRequest(AsciiString scheme, AsciiString authority, RequestPathSelector paths) {
    /** The request HEADERS for {@code path}. */
    Http2Headers headers(CharSequence path) {
      return new DefaultHttp2Headers(false, 5)
          .method(HttpMethod.POST.asciiName())
          .scheme(scheme)
          .authority(authority)
          .path(path)
          .add(HttpHeaderNames.CONTENT_TYPE, MappingWire.CONTENT_TYPE);
    }
  }

  /** Picks the {@code :path} of a client's request from its first frame. */
  public interface RequestPathSelector {
    /** The path for a request of {@code type} whose metadata is {@code metadata} (may be null). */
    CharSequence path(int type, ByteBuf metadata);
  }

  private final H2Handler h2;
  private final Channel channel;
  private final ChannelHandlerContext ctx;
  private final boolean server;
  private final RequestOpener opener;
  /** Live streams by the id the engine knows them by. */
  private final IntObjectHashMap<MappedStream> streams = new IntObjectHashMap<>();
  private final ArrayDeque<MappedStream> owing = new ArrayDeque<>();

  private FrameReceiver receiver;
  private int maxFrameSize = Frames.MAX_FRAME_SIZE;
  private boolean closed;
  private boolean readPaused;

  // Outbound accounting (bytes handed to HTTP/2 and not yet taken by the socket).
  private final OutboundBytes outbound;
  private final OutboundCutter cutter;
  final InboundReassembler reassembler;

  private StreamMapping(H2Handler h2, boolean server, ClientRequest request, LongConsumer rttListener) {
    this.h2 = h2;
    this.ctx = h2.ctx();
    this.channel = ctx.channel();
    this.outbound =
        new OutboundBytes(
            channel,
            h2::flushes,
            writable -> {
              FrameReceiver r = receiver;
              if (r != null) {
                r.onWritabilityChanged(writable);
              }
            });
    this.server = server;
    this.cutter = new OutboundCutter(this, server);
    this.opener = request == null ? null : new RequestOpener(h2, request);
    this.reassembler = new InboundReassembler(this, channel.alloc());
    h2.addListener(new MappingConnectionEvents(this, server, rttListener, channel.alloc()));
  }

  /** The client side of a connection whose preface is under way. */
  public static StreamMapping client(H2Handler h2, ClientRequest request, LongConsumer rttListener) {
    return new StreamMapping(h2, false, request, rttListener);
  }

  /** The server side, made when a connection's first mapped stream arrives. */
  public static StreamMapping server(H2Handler h2) {
    return new StreamMapping(h2, true, null, null);
  }

  /** Whether the engine closed this connection (or the channel closed). */
  public boolean isClosed() {
    return closed;
  }

  // ---- DuplexTransport ---------------------------------------------------------------------------

  @Override
  public boolean supportsResumption() {
    return false; // no connection-level RESUME: every RSocket stream is its own HTTP/2 stream
  }

  @Override
  public Framing framing() {
    return Framing.LENGTH_PREFIXED;
  }

  @Override
  public EventExecutor executor() {
    return channel.eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
    this.maxFrameSize = receiver.maxFrameSize();
    reassembler.budget(ReadBudget.of(channel, OutboundCutter.LENGTH_SIZE + maxFrameSize));
    outbound.highWater(receiver.maxQueuedOutboundBytes());
    if (!channel.isActive()) {
      closed = true;
      this.receiver = null;
      receiver.onClosed();
      return;
    }
    fitWindowsToFrames();
    if (server) {
      deliver(MappingWire.impliedSetup(channel.alloc()));
    }
  }

  @Override
  public void write(ByteBuf batch) {
    try {
      if (closed) {
        return;
      }
      cutter.cut(batch);
    } finally {
      batch.release();
    }
  }

  /**
   * One outbound frame (its bytes after the u24 length that are in this batch: {@code length}
   * bytes of {@code batch} from {@code at}) on engine stream {@code streamId}: does what it means,
   * and returns the stream its bytes go to as DATA, with {@link MappedStream#after} set to what
   * follows its last byte; null when none of its bytes are written as DATA. Only the frames whose
   * content matters here (a request, an ERROR, a frame on stream 0) are sliced out of the batch.
   */
  MappedStream outboundFrame(ByteBuf batch, int at, int length, int streamId, int type, int flags, boolean whole) {
    if (streamId == 0) {
      connectionFrame(batch.slice(at, length), type, flags, whole);
      return null;
    }
    MappedStream st;
    int after;
    if (server) {
      if (FrameType.isRequest(type)) {
        rejectServerRequest(streamId);
        return null;
      }
      st = streams.get(streamId);
      if (st == null || st.localEnded) {
        return null;
      }
      after = serverFrame(st, batch, at, length, type, flags);
    } else if (FrameType.isRequest(type)) {
      st = openStream(streamId, type, flags, batch.slice(at, length));
      if (st == null) {
        return null;
      }
      after = StreamRules.clientRequestEnd(st, type, flags);
    } else {
      st = streams.get(streamId);
      // A CANCEL still goes after our half has ended (RST_STREAM is fine in half-closed).
      if (st == null || (st.localEnded && type != FrameType.CANCEL)) {
        return null;
      }
      after = clientFrame(st, type, flags);
    }
    if (after < 0) {
      return null;
    }
    st.after = after;
    return st;
  }

  /** A frame on stream 0 from the engine. */
  private void connectionFrame(ByteBuf frame, int type, int flags, boolean whole) {
    switch (type) {
      case FrameType.SETUP:
        String why = whole ? MappingWire.unsupportedSetup(frame) : "the HTTP/2 stream mapping carries no setup payload";
        if (why != null) {
          later(MappingWire.error(channel.alloc(), 0, ErrorCode.UNSUPPORTED_SETUP, why));
        }
        break;
      case FrameType.KEEPALIVE:
        if (!server && (flags & Frames.FLAG_KEEPALIVE_RESPOND) != 0) {
          h2.encoder().writePing(ctx, false, System.nanoTime(), h2.newPromise());
        }
        break;
      case FrameType.ERROR:
        int code = Frames.errorCode(frame);
        String message = Frames.errorMessage(frame);
        h2.goAway(Http2Error.NO_ERROR.code(), MappingWire.goAwayDebug(channel.alloc(), code, message));
        break;
      default:
        // METADATA_PUSH, LEASE, RESUME, EXT: not carried by the mapping.
        if (logger.isDebugEnabled()) {
          logger.debug("{}: {} is not carried by the HTTP/2 stream mapping; dropped", channel, FrameType.name(type));
        }
    }
  }

  /** The engine of a server started a request: the mapping cannot carry it. */
  private void rejectServerRequest(int streamId) {
    later(
        MappingWire.error(
            channel.alloc(),
            streamId,
            ErrorCode.REJECTED,
            "the HTTP/2 stream mapping carries only requests the client starts"));
  }

  /** Opens the HTTP/2 stream of a client's request; null (and REJECTED to the engine) if it cannot. */
  private MappedStream openStream(int rsocketId, int type, int flags, ByteBuf frame) {
    String refused = opener.refusal();
    if (refused == null) {
      // All read from the frame before the stream exists: nothing can fail between its opening
      // and its HEADERS.
      Http2Headers headers = opener.headers(type, flags, frame);
      boolean unbounded = type == FrameType.REQUEST_STREAM && Frames.initialRequestN(frame) == Integer.MAX_VALUE;
      Http2Stream s = opener.open();
      if (s != null) {
        MappedStream st = new MappedStream(this, rsocketId);
        st.h2 = s;
        // Written with the request frame's first bytes, which the cutter hands over next, before
        // any other stream's frame (writePiece): with them in one go when they end the stream.
        st.requestHeaders = headers;
        st.kind = type;
        st.unbounded = unbounded;
        h2.attach(s, st);
        streams.put(rsocketId, st);
        return st;
      }
      refused = "the HTTP/2 stream could not be opened";
    }
    later(MappingWire.error(channel.alloc(), rsocketId, ErrorCode.REJECTED, refused));
    return null;
  }

  /** A client's frame on an open stream: what follows it, or -1 if it is not written as DATA. */
  private int clientFrame(MappedStream st, int type, int flags) {
    switch (type) {
      case FrameType.PAYLOAD:
        return StreamRules.clientPayload(st, flags);
      case FrameType.REQUEST_N:
        return StreamRules.AFTER_NOTHING;
      case FrameType.ERROR:
        // A requester's ERROR (a channel's) ends both directions.
        st.outDone = true;
        st.inDone = true;
        st.engineDone = true;
        st.localEnded = true;
        return StreamRules.AFTER_END_STREAM;
      case FrameType.CANCEL:
        st.engineDone = true;
        st.inDone = true;
        st.outDone = true;
        if (st.h2.state() != Http2Stream.State.CLOSED) {
          reset(st, Http2Error.CANCEL);
        }
        streams.remove(st.rsocketId);
        return -1;
      default:
        return -1;
    }
  }

  /**
   * A server's frame on a stream: what follows it, or -1 if it is not written as DATA (an ERROR,
   * which is trailers only).
   */
  private int serverFrame(MappedStream st, ByteBuf batch, int at, int length, int type, int flags) {
    if (!st.headersDone && type != FrameType.ERROR) {
      st.headersDone = true;
      if (type == FrameType.PAYLOAD) {
        st.headersPending = true; // written with the run this payload starts (writePiece)
      } else {
        writeResponseHeaders(st);
      }
    }
    switch (type) {
      case FrameType.PAYLOAD:
        if ((flags & (Frames.FLAG_COMPLETE | Frames.FLAG_FOLLOWS)) == Frames.FLAG_COMPLETE) {
          st.outDone = true;
          return StreamRules.serverEndIfDone(st);
        }
        return StreamRules.AFTER_NOTHING;
      case FrameType.REQUEST_N:
        return StreamRules.AFTER_NOTHING;
      case FrameType.CANCEL:
        // The responder of a channel cancels the requester's direction.
        st.inDone = true;
        return StreamRules.serverEndIfDone(st);
      case FrameType.ERROR:
        st.outDone = true;
        st.inDone = true;
        st.localEnded = true;
        st.engineDone = true;
        ByteBuf frame = batch.slice(at, length);
        writeTrailers(st, StreamRules.errorTrailers(st, Frames.errorCode(frame), Frames.errorMessage(frame)));
        return -1;
      default:
        return -1;
    }
  }

  /** A server's {@code :status 200} before its first DATA, through the encoder. */
  private void writeResponseHeaders(MappedStream st) {
    h2.encoder().writeHeaders(ctx, st.h2.id(), StreamRules.RESPONSE_HEADERS, 0, false, outbound.track(RESPONSE_HEADERS_SIZE));
    outbound.checkHighWater();
  }

  private void writeTrailers(MappedStream st, Http2Headers trailers) {
    ChannelPromise counted =
        trailers == StreamRules.TRAILERS_OK ? outbound.track(TRAILERS_OK_SIZE) : outbound.trackHeaders(trailers);
    h2.encoder().writeHeaders(ctx, st.h2.id(), trailers, 0, true, counted);
    outbound.checkHighWater();
  }

  private void reset(MappedStream st, Http2Error error) {
    st.localEnded = true;
    // Through the encoder: netty's builder decorates it with the limit on RST_STREAM sent
    // (MadeYouReset); the handler's resetStream writes past that decorator, not counted against that limit.
    h2.encoder().writeRstStream(ctx, st.h2.id(), error.code(), outbound.track(OutboundBytes.RST_STREAM));
    outbound.checkHighWater();
  }

  /** Writes one piece of a frame as DATA on {@code st}, then what follows the frame. */
  void writePiece(MappedStream st, ByteBuf piece, int after) {
    if (st == null || st.h2.state() == Http2Stream.State.CLOSED) {
      piece.release();
      return;
    }
    int n = piece.readableBytes();
    ChannelPromise written = outbound.track(n);
    Http2Headers headers = st.requestHeaders;
    if (headers != null) {
      st.requestHeaders = null;
      // The request's HEADERS and its first DATA past netty's connection encoder when nothing could
      // tell the difference; else the HEADERS through the encoder first, as usual.
      if (H2Answers.writeRequest(h2, st.h2, headers, piece, after == StreamRules.AFTER_END_STREAM, written)) {
        outbound.checkHighWater();
        return;
      }
      h2.encoder().writeHeaders(ctx, st.h2.id(), headers, 0, false, outbound.trackHeaders(headers));
    } else if (st.headersPending) {
      st.headersPending = false;
      // A whole answer (headers, these frames, the OK trailers) past netty's connection encoder
      // when nothing could tell the difference; else the headers go first, as usual.
      if (after == StreamRules.AFTER_TRAILERS_OK
          && H2Answers.writeWhole(h2, st.h2, StreamRules.RESPONSE_HEADERS, piece, StreamRules.TRAILERS_OK, written)) {
        outbound.checkHighWater();
        return;
      }
      writeResponseHeaders(st);
    }
    h2.encoder().writeData(ctx, st.h2.id(), piece, 0, after == StreamRules.AFTER_END_STREAM, written);
    if (after == StreamRules.AFTER_TRAILERS_OK) {
      writeTrailers(st, StreamRules.TRAILERS_OK);
    }
    outbound.checkHighWater();
  }

  @Override
  public void flush() {
    if (!closed) {
      h2.flushNow();
    }
  }

  @Override
  public boolean isWritable() {
    return outbound.writable();
  }

  @Override
  public long outboundProgress() {
    return outbound.written();
  }

  @Override
  public long unsentBytes() {
    return outbound.unsent();
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    readPaused = !enabled;
    if (enabled && !owing.isEmpty()) {
      MappedStream st;
      while ((st = owing.poll()) != null) {
        int n = st.owed;
        st.owed = 0;
        st.owing = false;
        if (st.h2.state() != Http2Stream.State.CLOSED) {
          h2.consume(st.h2, n);
        }
      }
      // netty writes the WINDOW_UPDATEs without flushing them, and a resume comes outside reads
      // (when the engine's output drained), so no read's end flushes them: the peer, waiting for
      // the window, would send nothing to make one.
      h2.flushNow();
    }
  }

  /** How many entries wait to be given their window back on resume (tests). */
  int streamsOwed() {
    return owing.size();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    FrameReceiver r = detach();
    if (channel.isActive() && !h2.connection().goAwaySent()) {
      // Closed without an ERROR from the engine (an abrupt close): netty's own GOAWAY on close
      // would be NO_ERROR without debug data, which the peer takes for a graceful close and waits
      // for its streams to finish; this one says the connection is gone.
      h2.goAway(
          Http2Error.NO_ERROR.code(),
          MappingWire.goAwayDebug(channel.alloc(), ErrorCode.CONNECTION_ERROR, "the connection was closed"));
    }
    h2.flushNow();
    channel.close();
    if (r != null) {
      r.onClosed();
    }
  }

  private FrameReceiver detach() {
    closed = true;
    owing.clear();
    FrameReceiver r = receiver;
    receiver = null;
    List<MappedStream> all = new ArrayList<>(streams.values());
    streams.clear();
    for (MappedStream st : all) {
      st.releasePartial();
    }
    cutter.clear();
    return r;
  }

  @Override
  public String name() {
    return "http2";
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  // ---- inbound -------------------------------------------------------------------------------

  /** Server: takes a new stream whose request headers the router accepted. */
  public MappedStream accept(Http2Stream stream, int pathKind) {
    MappedStream st = new MappedStream(this, stream.id());
    st.h2 = stream;
    st.pathKind = pathKind;
    st.requestOpen = true;
    streams.put(stream.id(), st);
    return st;
  }

  void onHeaders(MappedStream st, Http2Headers headers, boolean endStream) {
    if (server) {
      // Trailers from a client carry nothing the mapping uses.
      if (endStream) {
        onRemoteEnd(st);
      }
      return;
    }
    if (!st.headersDone) {
      CharSequence status = headers.status();
      if (!endStream && MappingWire.isInterim(status)) {
        return; // 1xx (100 Continue, 103 Early Hints): the answer follows
      }
      st.headersDone = true;
      if (status == null || !AsciiString.contentEquals(status, "200")) {
        failFromServer(st, StreamRules.httpStatusError(status), "the HTTP/2 server answered :status " + status);
        return;
      }
      if (!endStream) {
        return;
      }
    }
    // Trailers (or a trailers-only answer).
    CharSequence value = headers.get(MappingWire.STATUS);
    long code = MappingWire.parseStatus(value);
    if (!st.engineDone && !st.inDone) {
      if (code == 0) {
        deliver(MappingWire.complete(channel.alloc(), st.rsocketId));
      } else {
        String message =
            code > 0
                ? MappingWire.decodeMessage(headers.get(MappingWire.MESSAGE))
                : "the HTTP/2 server ended the stream without a valid rsocket-status (" + value + ")";
        st.engineDone = true;
        deliver(MappingWire.error(channel.alloc(), st.rsocketId, code > 0 ? (int) code : ErrorCode.INVALID, message));
      }
    }
    st.inDone = true;
    if (code != 0) {
      st.outDone = true;
    }
    endClientHalf(st);
  }

  /** The server ended the stream abnormally: the engine gets an ERROR, the stream a reset. */
  private void failFromServer(MappedStream st, int code, String message) {
    if (!st.engineDone) {
      st.engineDone = true;
      deliver(MappingWire.error(channel.alloc(), st.rsocketId, code, message));
    }
    st.inDone = true;
    st.outDone = true;
    if (!st.localEnded && st.h2.state() != Http2Stream.State.CLOSED) {
      reset(st, Http2Error.CANCEL);
    }
  }

  /** A client ends its half once the server's direction is over and its own too. */
  private void endClientHalf(MappedStream st) {
    if (StreamRules.endIfDone(st) == StreamRules.AFTER_END_STREAM && st.h2.state() != Http2Stream.State.CLOSED) {
      h2.encoder().writeData(ctx, st.h2.id(), Unpooled.EMPTY_BUFFER, 0, true, h2.newPromise());
    }
    if (st.localEnded) {
      streams.remove(st.rsocketId);
    }
  }

  int onData(MappedStream st, ByteBuf data, int padding, boolean endStream) {
    int n = data.readableBytes() + padding;
    if (receiver == null) {
      return n;
    }
    int heldBefore = st.partial == null ? 0 : st.partial.readableBytes();
    if (!st.engineDone) {
      reassembler.frames(st, data);
    } else {
      st.releasePartial(); // nobody will read the rest of it
    }
    if (endStream) {
      onRemoteEnd(st);
    }
    // Bytes of a frame not yet whole stay charged to the windows until it is: what a peer can
    // make us hold in unfinished frames is bounded by the windows it was given.
    int heldAfter = st.partial == null ? 0 : st.partial.readableBytes();
    reassembler.charge(st, heldAfter);
    int consumed = n + heldBefore - heldAfter;
    if (readPaused && receiver != null) {
      if (!st.owing) {
        // Once per stream: DATA that only extends a partial frame consumes nothing, owed stays 0.
        st.owing = true;
        owing.add(st);
      }
      st.owed += consumed;
      return 0;
    }
    return consumed;
  }

  /**
   * A frame as large as the engine accepts must fit in a window, or it could never arrive whole:
   * when the engine's max frame size is beyond the windows, they grow to it.
   */
  private void fitWindowsToFrames() {
    int need = OutboundCutter.LENGTH_SIZE + maxFrameSize;
    io.netty.handler.codec.http2.Http2LocalFlowController local = h2.decoder().flowController();
    if (need > local.initialWindowSize()) {
      h2.encoder()
          .writeSettings(ctx, new io.netty.handler.codec.http2.Http2Settings().initialWindowSize(need), h2.newPromise());
    }
    Http2Stream connection = h2.connection().connectionStream();
    int window = local.windowSize(connection);
    if (need > window) {
      h2.growWindow(connection, need - window);
    }
  }

  int maxFrameSize() {
    return maxFrameSize;
  }

  /** The engine has let go of this transport (closed, or the channel did). */
  boolean isDetached() {
    return receiver == null;
  }

  /** A broken inbound byte stream (a frame too large, unfinished frames over the read budget). */
  void transportError(Throwable cause) {
    FrameReceiver r = receiver;
    if (r != null) {
      r.onTransportError(cause);
    }
  }

  /** One whole inbound frame (indexes narrowed to it): checked, renumbered and delivered. */
  void inboundFrame(MappedStream st, ByteBuf frame) {
    if (frame.readableBytes() < Frames.HEADER_SIZE) {
      streamError(st, Http2Error.PROTOCOL_ERROR, "an RSocket frame shorter than its header");
      return;
    }
    int type = Frames.type(frame);
    int flags = Frames.flags(frame);
    String broken = StreamRules.inbound(server, st, type, flags);
    if (broken != null) {
      streamError(st, Http2Error.PROTOCOL_ERROR, broken);
      return;
    }
    frame.setInt(frame.readerIndex(), st.rsocketId);
    FrameReceiver r = receiver;
    if (r != null) {
      r.onFrame(frame);
    }
    if (server && type == FrameType.ERROR && !st.localEnded) {
      // The requester's ERROR ended the stream: our half ends too.
      st.localEnded = true;
      writeTrailers(st, StreamRules.errorTrailers(st, ErrorCode.CANCELED, "ended by the requester's ERROR"));
    } else if (server && st.outDone && !st.localEnded && StreamRules.serverEndIfDone(st) == StreamRules.AFTER_TRAILERS_OK) {
      writeTrailers(st, StreamRules.TRAILERS_OK);
    } else if (!server && type == FrameType.CANCEL) {
      endClientHalf(st);
    }
  }

  /** A stream broke the mapping or the read budget: it is reset with {@code code}, the engine told. */
  void streamError(MappedStream st, Http2Error code, String why) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: HTTP/2 stream {}: {}", channel, st.h2.id(), why);
    }
    st.releasePartial();
    boolean tellEngine = !st.engineDone && st.kind != 0;
    st.engineDone = true;
    st.inDone = true;
    st.outDone = true;
    if (!st.localEnded) {
      reset(st, code);
    }
    if (tellEngine) {
      deliver(
          server
              ? MappingWire.cancel(channel.alloc(), st.rsocketId)
              : MappingWire.error(channel.alloc(), st.rsocketId, ErrorCode.INVALID, why));
    }
  }

  /** END_STREAM from the peer. */
  private void onRemoteEnd(MappedStream st) {
    if (server) {
      if (st.kind == 0 || st.requestOpen) {
        streamError(st, Http2Error.PROTOCOL_ERROR, "the stream ended before its request was complete");
        return;
      }
      if (st.kind == FrameType.REQUEST_CHANNEL && !st.inDone && !st.engineDone) {
        // A channel's requester ends its half only after its COMPLETE (or ERROR, or our CANCEL).
        streamError(st, Http2Error.PROTOCOL_ERROR, "the stream ended before the channel's requester completed");
        return;
      }
      if (st.kind == FrameType.REQUEST_FNF && !st.localEnded) {
        // Nothing comes back from a fire-and-forget: the stream ends at once.
        st.localEnded = true;
        st.headersDone = true;
        writeTrailers(st, StreamRules.fireAndForgetDone());
      }
      return;
    }
    if (!st.inDone && !st.engineDone) {
      failFromServer(st, ErrorCode.CANCELED, "the HTTP/2 server ended the stream without rsocket-status");
      return;
    }
    // The server's direction is over (its COMPLETE or ERROR passed) but it ended the stream with
    // DATA, not trailers: our half ends as after trailers, or the stream would keep its slot.
    if (st.engineDone) {
      st.outDone = true;
    }
    st.inDone = true;
    endClientHalf(st);
  }

  void onReset(MappedStream st, long errorCode) {
    st.localEnded = true;
    if (st.engineDone || (st.inDone && st.outDone)) {
      st.engineDone = true;
      return;
    }
    st.engineDone = true;
    if (server) {
      if (st.kind != 0) {
        deliver(MappingWire.cancel(channel.alloc(), st.rsocketId));
      }
    } else {
      boolean refused = errorCode == Http2Error.REFUSED_STREAM.code();
      deliver(
          MappingWire.error(
              channel.alloc(),
              st.rsocketId,
              refused ? ErrorCode.REJECTED : ErrorCode.CANCELED,
              "the HTTP/2 server reset the stream (" + errorName(errorCode) + ")"));
    }
  }

  void onStreamClosed(MappedStream st) {
    st.releasePartial();
    if (streams.get(st.rsocketId) == st) {
      streams.remove(st.rsocketId);
    }
    st.owed = 0;
    if (receiver == null || st.engineDone) {
      return;
    }
    if ((server && st.kind == 0) || (st.inDone && st.outDone)) {
      return;
    }
    st.engineDone = true;
    if (server) {
      deliver(MappingWire.cancel(channel.alloc(), st.rsocketId));
    } else {
      Http2Connection c = h2.connection();
      boolean unprocessed = c.goAwayReceived() && st.h2.id() > c.local().lastStreamKnownByPeer();
      deliver(
          MappingWire.error(
              channel.alloc(),
              st.rsocketId,
              unprocessed ? ErrorCode.REJECTED : ErrorCode.CANCELED,
              unprocessed
                  ? "the HTTP/2 server went away before processing the stream"
                  : "the HTTP/2 stream closed"));
    }
  }

  static String errorName(long code) {
    Http2Error e = Http2Error.valueOf(code);
    return e != null ? e.name() : "error " + code;
  }

  // ---- connection events -----------------------------------------------------------------------

  /** The end of a read batch. */
  void readComplete() {
    FrameReceiver r = receiver;
    if (r != null) {
      r.onReadComplete();
    }
  }

  /** The channel closed. */
  void channelClosed() {
    if (closed) {
      return;
    }
    FrameReceiver r = detach();
    if (r != null) {
      r.onClosed();
    }
  }

  /** Hands a frame made here to the engine, and releases it. */
  void deliver(ByteBuf frame) {
    try {
      FrameReceiver r = receiver;
      if (r != null) {
        r.onFrame(frame);
      }
    } finally {
      frame.release();
    }
  }

  /** Hands a frame made here to the engine in a later task (not from inside its own write). */
  private void later(ByteBuf frame) {
    channel.eventLoop().execute(
        () -> {
          deliver(frame);
          FrameReceiver r = receiver;
          if (r != null) {
            r.onReadComplete();
          }
        });
  }

  @Override
  public String toString() {
    return "http2 " + (server ? "server" : "client") + " mapping " + channel;
  }
}
