package io.sluice.transport.http2.internal;

import static io.sluice.transport.websocket.internal.WebSocketFrames.FIN;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_CLOSE;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_PONG;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultChannelPromise;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.websocket.WebSocketProtocolException;
import io.sluice.transport.websocket.internal.OutboundMasking;
import io.sluice.transport.websocket.internal.WebSocketFramePrefix;
import io.sluice.transport.websocket.internal.WebSocketFrames;
import io.sluice.transport.websocket.internal.WebSocketReader;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One RSocket connection carried by one HTTP/2 stream opened with extended CONNECT ({@code
 * :protocol websocket}, RFC 8441): the stream's DATA is a WebSocket byte stream framed exactly as
 * on the WebSocket transport, one RSocket frame per binary message, the client masking and the
 * server not. The RFC 6455 code is the WebSocket transport's: the protocol core writes each
 * frame's header ({@link Framing#TRANSPORT_PREFIXED} with a {@link WebSocketFramePrefix}), a
 * client masks as its batches are handed over ({@link OutboundMasking}), and a {@link
 * WebSocketReader} cuts and checks the inbound frames (a text message closes with 1003, an
 * oversize one, against the engine's max frame size, with 1009, anything else against RFC 6455
 * with 1002; pings are answered with pongs).
 *
 * <p><b>Flow control, per stream.</b> Inbound DATA is given back to HTTP/2 flow control as soon
 * as it is read, except while the engine has paused reading ({@link #setReadEnabled}): the bytes
 * are then given back on resume, so the peer's window on this stream closes and this RSocket
 * connection alone stops receiving; the other streams of the TCP connection go on (the
 * connection's window is sized so that every stream can use its whole window, see the
 * transports). Outbound, bytes handed to HTTP/2 and not yet taken by the socket are counted for
 * this stream only: above the engine's limit the transport is unwritable.
 *
 * <p><b>Closing</b> ends this stream, never the TCP connection: {@link #close()} sends a close
 * frame with END_STREAM and waits, at most {@link #CLOSE_WAIT_MILLIS}, for the peer's close frame
 * and END_STREAM (discarding what else comes), then resets the stream (CANCEL). A peer's close
 * frame is answered the same way; a peer's END_STREAM without a close frame, a RST_STREAM or the
 * connection going end this transport at once. The receiver hears {@link FrameReceiver#onClosed()}
 * at once in every case.
 *
 * <p><b>Threads.</b> Everything runs on the connection's event loop. <b>Buffers.</b> What is given
 * to {@link #write} is this transport's (passed on to HTTP/2); frames lent to {@link
 * FrameReceiver#onFrame} stay ours; the partial frame held between DATA frames is freed when the
 * stream closes.
 */
public final class WebSocketStream
    implements DuplexTransport, H2Handler.StreamSink, WebSocketReader.Handler {
  /** Longest a closing stream waits for the peer's close frame and END_STREAM. */
  public static final long CLOSE_WAIT_MILLIS = 2000;

  /** Told once the WebSocket is open (client: the 200 came) or could not be. */
  public interface Handshake {
    /** The server answered 200: the stream is a WebSocket. */
    void onOpen(WebSocketStream stream);

    /**
     * The server answered another status ({@code status} > 0), or the stream closed before it
     * answered ({@code status} 0); {@code refused}: the server did not process the request, so it
     * may be sent again (RST_STREAM REFUSED_STREAM, or a GOAWAY that excludes the stream).
     */
    void onFailed(int status, String reason, boolean refused);
  }

  private final H2Handler h2;
  private final ChannelHandlerContext ctx;
  private final Channel channel;
  private final boolean client;
  private final WebSocketStreams group;
  private final WebSocketReader reader;
  private final OutboundMasking masking;
  private final Http2Stream stream;
  /** Client: told of the response; null once told (and on a server). */
  private Handshake handshake;
  /** Run once when the stream has closed. */
  private final Runnable onEnd;

  private FrameReceiver receiver;
  private boolean started;
  /** Close began (either side) or the stream went: nothing more is delivered. */
  private boolean closing;
  /** Our close frame and END_STREAM are queued: our half is over. */
  private boolean closeSent;
  private boolean streamClosed;
  /** The peer's END_STREAM came before the engine started. */
  private boolean remoteEndPending;
  private int closeCode = WebSocketFrames.CLOSE_NORMAL;
  private String closeReason = "";
  private ScheduledFuture<?> closeGuard;

  /** Bytes of a frame cut across DATA frames (or read before the engine started), or null. */
  private ByteBuf cumulation;
  /** Inside {@link WebSocketReader#read}: the cumulation is freed after it, not during it. */
  private boolean reading;
  /** Inbound bytes not given back to flow control yet (reads paused, or not started). */
  private int owed;
  private boolean readPaused;
  /** In the connection's list of streams to tell of the read batch's end. */
  boolean inBatch;
  private boolean controlPending;

  private final OutboundBytes outbound;

  private WebSocketStream(
      H2Handler h2, WebSocketStreams group, Http2Stream stream, boolean client, Handshake handshake, Runnable onEnd) {
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
    this.group = group;
    this.stream = stream;
    this.client = client;
    this.handshake = handshake;
    this.onEnd = onEnd;
    this.reader = new WebSocketReader(!client, channel.alloc());
    this.masking = client ? new OutboundMasking() : null;
    group.add();
  }

  /** A server's stream, answered 200 already; {@code onEnd} runs once it has closed. */
  static WebSocketStream server(H2Handler h2, WebSocketStreams group, Http2Stream stream, Runnable onEnd) {
    return new WebSocketStream(h2, group, stream, false, null, onEnd);
  }

  /**
   * A client's stream whose extended CONNECT has been written; {@code handshake} hears of the
   * response, {@code onEnd} runs once the stream has closed.
   */
  public static WebSocketStream client(
      H2Handler h2, WebSocketStreams group, Http2Stream stream, Handshake handshake, Runnable onEnd) {
    return new WebSocketStream(h2, group, stream, true, handshake, onEnd);
  }

  /** The HTTP/2 stream id, for logs and tests. */
  public int streamId() {
    return stream.id();
  }

  // ---- DuplexTransport ---------------------------------------------------------------------------

  @Override
  public Framing framing() {
    return Framing.TRANSPORT_PREFIXED;
  }

  @Override
  public FramePrefix framePrefix() {
    return client ? WebSocketFramePrefix.CLIENT : WebSocketFramePrefix.SERVER;
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
    this.started = true;
    reader.maxMessageSize(receiver.maxFrameSize());
    outbound.highWater(receiver.maxQueuedOutboundBytes());
    if (streamClosed || closing) {
      detach();
      receiver.onClosed();
      return;
    }
    if (cumulation != null || remoteEndPending || owed > 0) {
      // What came before the engine started: read on the next loop turn, not from inside start.
      channel.eventLoop().execute(this::readBuffered);
    }
  }

  private void readBuffered() {
    if (receiver == null || streamClosed) {
      return;
    }
    ByteBuf c = cumulation;
    cumulation = null;
    if (c != null) {
      try {
        feed(c);
      } finally {
        c.release();
      }
    }
    if (remoteEndPending) {
      onRemoteEnd();
    }
    if (!readPaused || closing) {
      payOwed();
    }
    readComplete();
  }

  @Override
  public void write(ByteBuf buf) {
    if (closeSent || streamClosed) {
      buf.release();
      return;
    }
    send(masking != null ? masking.mask(buf, channel.alloc()) : buf, false);
  }

  /** Hands {@code out} (taken) to HTTP/2 as DATA of this stream, counted until the socket takes it. */
  private void send(ByteBuf out, boolean endStream) {
    int n = out.readableBytes();
    h2.encoder().writeData(ctx, stream.id(), out, 0, endStream, outbound.track(n));
    outbound.checkHighWater();
  }

  @Override
  public void flush() {
    if (!streamClosed) {
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
    if (enabled) {
      payOwed();
    }
  }

  /**
   * Gives the bytes read but held back to flow control: the peer's window on this stream opens.
   * netty writes the WINDOW_UPDATE without flushing it (a read batch's end flushes), so it is
   * flushed here: resuming happens outside reads, when the engine's output drained.
   */
  private void payOwed() {
    int n = owed;
    owed = 0;
    if (n > 0 && !streamClosed) {
      h2.consume(stream, n);
      h2.flushNow();
    }
  }

  @Override
  public void close() {
    if (closing) {
      return;
    }
    FrameReceiver r = detach();
    endOurHalf();
    payOwed(); // what comes now is discarded: nothing is held back any more
    if (r != null) {
      r.onClosed();
    }
  }

  /** Sends our close frame with END_STREAM (once) and resets the stream if the peer lingers. */
  private void endOurHalf() {
    if (closeSent || streamClosed) {
      return;
    }
    closeSent = true;
    byte[] reason = closeReason == null ? new byte[0] : closeReason.getBytes(StandardCharsets.UTF_8);
    int reasonLength = Math.min(reason.length, WebSocketFrames.MAX_CONTROL_PAYLOAD - 2);
    while (reasonLength > 0 && reasonLength < reason.length && (reason[reasonLength] & 0xC0) == 0x80) {
      reasonLength--; // do not cut a UTF-8 sequence in two
    }
    ByteBuf payload = Unpooled.buffer(2 + reasonLength);
    payload.writeShort(closeCode);
    payload.writeBytes(reason, 0, reasonLength);
    ByteBuf frame = WebSocketFrames.frame(channel.alloc(), FIN | OP_CLOSE, payload, client);
    send(frame, true);
    h2.flushNow();
    if (!streamClosed) {
      closeGuard = channel.eventLoop().schedule(this::resetIfOpen, CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void resetIfOpen() {
    if (!streamClosed) {
      h2.resetStream(ctx, stream.id(), Http2Error.CANCEL.code(), h2.newPromise());
      h2.flushNow();
    }
  }

  private FrameReceiver detach() {
    FrameReceiver r = receiver;
    receiver = null;
    closing = true;
    reader.discardUntilClose();
    return r;
  }

  @Override
  public String name() {
    return "websocket_h2";
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  // ---- the HTTP/2 stream -------------------------------------------------------------------------

  @Override
  public void onHeaders(Http2Stream s, Http2Headers headers, boolean endStream) {
    Handshake hs = handshake;
    if (hs != null) {
      handshake = null;
      CharSequence status = headers.status();
      if (status == null || !"200".contentEquals(status) || endStream) {
        CharSequence reason = headers.get(WebSocketWire.REASON);
        if (!streamClosed && !endStream) {
          h2.resetStream(ctx, stream.id(), Http2Error.CANCEL.code(), h2.newPromise());
          h2.flushNow();
        }
        hs.onFailed(
            status == null ? 0 : parseStatus(status),
            reason != null ? reason.toString() : endStream ? "the server ended the stream" : "",
            false);
        return;
      }
      hs.onOpen(this);
      return;
    }
    // A server's request headers (seen by the router already; never with END_STREAM), or trailers.
    if (endStream) {
      remoteEnded();
    }
  }

  private static int parseStatus(CharSequence status) {
    try {
      return Integer.parseInt(status.toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  @Override
  public int onData(Http2Stream s, ByteBuf data, int padding, boolean endStream) {
    int n = data.readableBytes() + padding;
    if (streamClosed) {
      return n;
    }
    if (!started) {
      // Before the engine starts (a server's first frames may come right behind the CONNECT).
      if (data.isReadable()) {
        if (cumulation == null) {
          cumulation = channel.alloc().buffer(Math.max(256, data.readableBytes()));
        }
        cumulation.writeBytes(data);
      }
      owed += n;
      if (endStream) {
        remoteEndPending = true;
      }
      return 0;
    }
    markBatch();
    feed(data);
    if (endStream) {
      remoteEnded();
    }
    if (readPaused && !closing && !streamClosed) {
      owed += n;
      return 0;
    }
    return n;
  }

  private void remoteEnded() {
    if (!started) {
      remoteEndPending = true;
      return;
    }
    onRemoteEnd();
  }

  /** The peer's END_STREAM: after its close frame the handshake is done, else the end is abnormal. */
  private void onRemoteEnd() {
    remoteEndPending = false;
    if (closing) {
      return; // our close frame is out (or goes now): the stream closes once both halves ended
    }
    FrameReceiver r = detach();
    endOurHalf();
    if (r != null) {
      r.onClosed();
    }
  }

  /** Reads the frames in {@code data} (borrowed), keeping a frame cut across DATA frames. */
  private void feed(ByteBuf data) {
    reading = true;
    try {
      if (cumulation == null) {
        reader.read(data, this);
        if (data.isReadable() && !streamClosed) {
          cumulation = channel.alloc().buffer(Math.max(256, data.readableBytes()));
          cumulation.writeBytes(data);
        }
        return;
      }
      cumulation.writeBytes(data);
      reader.read(cumulation, this);
    } finally {
      reading = false;
    }
    ByteBuf c = cumulation;
    if (c == null) {
      return;
    }
    if (streamClosed || !c.isReadable()) {
      cumulation = null;
      c.release();
    } else if (c.readerIndex() > 0) {
      // Never compacted in place: the engine may hold slices of the frames lent from it.
      ByteBuf rest = channel.alloc().buffer(Math.max(256, c.readableBytes()));
      rest.writeBytes(c);
      cumulation = rest;
      c.release();
    }
  }

  private void markBatch() {
    if (!inBatch) {
      inBatch = true;
      group.readThisBatch(this);
    }
  }

  /** The end of a read batch in which this stream read something. */
  void readComplete() {
    inBatch = false;
    FrameReceiver r = receiver;
    if (r != null) {
      r.onReadComplete();
    }
    if (controlPending) {
      controlPending = false;
      flush();
    }
  }

  @Override
  public void onReset(Http2Stream s, long errorCode) {
    Handshake hs = handshake;
    if (hs != null) {
      handshake = null;
      hs.onFailed(0, "the server reset the stream (" + errorName(errorCode) + ")",
          errorCode == Http2Error.REFUSED_STREAM.code());
    }
    // onClosed follows.
  }

  @Override
  public void onClosed(Http2Stream s) {
    streamClosed = true;
    if (closeGuard != null) {
      closeGuard.cancel(false);
    }
    Handshake hs = handshake;
    if (hs != null) {
      handshake = null;
      var c = h2.connection();
      boolean unprocessed = c.goAwayReceived() && stream.id() > c.local().lastStreamKnownByPeer();
      hs.onFailed(
          0,
          unprocessed ? "the server is going away (HTTP/2 GOAWAY)" : "the HTTP/2 stream closed before the server answered",
          unprocessed);
    }
    owed = 0; // netty gives a closed stream's unconsumed bytes back to the connection
    FrameReceiver r = detach();
    reader.release();
    if (!reading && cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
    group.remove(this);
    try {
      onEnd.run();
    } finally {
      if (r != null) {
        r.onClosed();
      }
    }
  }

  private static String errorName(long code) {
    Http2Error e = Http2Error.valueOf(code);
    return e != null ? e.name() : "error " + code;
  }

  // ---- WebSocketReader.Handler -------------------------------------------------------------------

  @Override
  public void onMessage(ByteBuf message) {
    FrameReceiver r = receiver;
    if (r != null) {
      r.onFrame(message);
    }
  }

  @Override
  public void onPing(ByteBuf payload) {
    if (outbound.writable() && !closeSent && !streamClosed) {
      send(WebSocketFrames.frame(channel.alloc(), FIN | OP_PONG, payload, client), false);
      controlPending = true;
    }
  }

  @Override
  public void onPeerClose(int code) {
    // Answer with the peer's code (RFC 6455 5.5.1); a code that may not be sent is answered with
    // 1000 (none) or 1002.
    closeCode =
        code == WebSocketFrames.CLOSE_NO_STATUS
            ? WebSocketFrames.CLOSE_NORMAL
            : WebSocketFrames.sendable(code) ? code : WebSocketProtocolException.PROTOCOL_ERROR;
    closeReason = "";
    FrameReceiver r = detach();
    endOurHalf();
    if (r != null) {
      r.onClosed();
    }
  }

  @Override
  public void onViolation(RuntimeException cause) {
    closeCode = WebSocketReader.closeCode(cause);
    closeReason = cause.getMessage();
    FrameReceiver r = receiver;
    if (r != null) {
      r.onTransportError(cause); // the engine answers ERROR[CONNECTION_ERROR] and closes us
    }
    close(); // if the engine has not
  }

  @Override
  public void onCloseDone() {
    // The peer's close frame after ours: its END_STREAM closes the stream (or the guard resets it).
  }

  @Override
  public String toString() {
    return "WebSocket over HTTP/2 " + (client ? "client" : "server") + " stream " + stream.id() + " " + channel;
  }
}
