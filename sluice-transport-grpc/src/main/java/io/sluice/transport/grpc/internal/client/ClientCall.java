package io.sluice.transport.grpc.internal.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.rpc.rsocket.ResponseMetadataCodec;
import io.sluice.rpc.rsocket.RpcErrors;
import io.sluice.transport.grpc.internal.GrpcMetadata;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.internal.GrpcEncoding;
import io.sluice.transport.grpc.internal.GrpcWire;
import io.sluice.transport.grpc.internal.MessageDeframer;
import io.sluice.transport.grpc.internal.MessageFramer;
import io.sluice.transport.http2.internal.H2Handler;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC call of a client: an HTTP/2 stream mapped onto the {@link StreamHandle} / {@link
 * StreamListener} contract of Sluice's requesters, so every RPC flavor calls gRPC servers as it
 * calls RSocket ones.
 *
 * <ul>
 *   <li><b>Start.</b> The first message's metadata is the RPC call metadata ({@link
 *       io.sluice.rpc.rsocket.CallMetadataCodec}): it becomes the request HEADERS ({@link RequestHeaders}); its data the
 *       first gRPC message. A unary or server-streaming request, and a fire-and-forget, end the
 *       request with it (END_STREAM).
 *   <li><b>Inbound flow control.</b> DATA bytes wait in a {@link MessageDeframer} and are given
 *       back to the HTTP/2 window only as messages are taken for the listener, which happens only
 *       while it has demand ({@link #request}): a listener that asks for nothing holds at most a
 *       stream window of bytes. A message larger than the window flows in once it is wanted. A
 *       message over the inbound limit fails the call with RESOURCE_EXHAUSTED.
 *   <li><b>Outbound flow control.</b> A channel's listener is granted demand ({@link
 *       StreamListener#onRequest}) a few messages at a time, and only while fewer than 32 KiB of
 *       this call are written but not yet taken by the socket (queued behind the server's HTTP/2
 *       window, say): a server that reads nothing holds the client to that plus one batch.
 *   <li><b>End.</b> The trailers' {@code grpc-status} ends the call once the messages before it
 *       are delivered: OK completes the listener, any other status fails it with a {@link
 *       StatusException}. So do a trailers-only response, an answer that is not gRPC (by its HTTP
 *       status), an RST_STREAM from the server ({@link ResponseStatus}), the connection closing
 *       (UNAVAILABLE) and the call's deadline passing (DEADLINE_EXCEEDED, and RST_STREAM CANCEL to
 *       the server). {@link #cancel} sends RST_STREAM CANCEL and signals nothing more.
 *   <li><b>Response metadata.</b> For a call whose call metadata asks for it (flag 0x20), the
 *       response headers and trailers reach the listener in the response metadata blocks of RPC
 *       over RSocket ({@link ResponseMetadataCodec}): the headers on the first message, the trailers
 *       on a unary response (held until the trailers come) or on a final message without data
 *       (flag no-message) that uses the one extra credit such callers grant, and with a failure at
 *       the end of an {@link ApplicationErrorException}'s data ({@link RpcErrors#encode(Status,
 *       Headers, Headers)}).
 *   <li><b>No request message.</b> A channel whose first message has the no-message flag sends
 *       HEADERS and, if its requests are complete, an empty DATA frame with END_STREAM.
 * </ul>
 *
 * <p><b>Threads.</b> The {@link StreamHandle} methods may be called from any thread; calls off the
 * connection's event loop are handed to it in order. Everything else, and every listener signal,
 * runs on the event loop.
 *
 * <p><b>Buffers.</b> The first message and those given to {@link #next} are owned here (released
 * once framed and written, or at once when the call is over); each message given to {@link
 * StreamListener#onNext} belongs to the listener. The deframer's bytes are released when the call
 * ends.
 */
public final class ClientCall implements StreamHandle, H2Handler.StreamSink {
  public static final int FIRE_AND_FORGET = 0;
  public static final int REQUEST_RESPONSE = 1;
  public static final int REQUEST_STREAM = 2;
  public static final int REQUEST_CHANNEL = 3;

  /** A channel is granted more requests only while fewer bytes than this wait for the socket. */
  static final int OUTBOUND_LOW_WATER = 32 * 1024;

  /** How many requests a channel is granted at a time. */
  static final int OUTBOUND_BATCH = 8;

  private final ClientConnection conn;
  private final H2Handler h2;
  private final EventLoop loop;
  private final int kind;
  private StreamListener listener;

  // Event loop only from here on.
  private Message first; // until the stream opens
  private final boolean firstCompletes;
  private Http2Stream stream;
  private MessageDeframer deframer; // made when the response HEADERS come
  private long demand;
  private int received;
  private boolean headersSeen;
  private Status terminal; // the response's status, delivered after the messages before it
  private boolean done; // the listener was told its last signal (or the call was cancelled)
  private boolean outboundDone;
  private boolean outboundCut; // the server ended the call while the client still sent
  private long granted;
  private long unsent;
  private boolean draining;
  private ScheduledFuture<?> deadline;
  private long timeoutMillis = CallMetadata.NO_TIMEOUT;
  // Response metadata, only for callers that asked for it (call metadata flag 0x20).
  private boolean wantsMetadata;
  private Headers responseHeaders; // from the response HEADERS
  private Headers trailers; // from the trailers (or a trailers-only response)
  private boolean headersDelivered;
  private Message held; // a unary response, delivered with the trailers

  private ClientCall(
      ClientConnection conn, int kind, Message first, boolean firstCompletes, long initialRequest, StreamListener listener) {
    this.conn = conn;
    this.h2 = conn.h2();
    this.loop = conn.loop();
    this.kind = kind;
    this.first = first;
    this.firstCompletes = firstCompletes;
    this.listener = listener;
    // A unary call takes up to two messages, so that a second one is seen (and refused) at once.
    this.demand = kind == REQUEST_RESPONSE ? 2 : kind == FIRE_AND_FORGET ? Long.MAX_VALUE : initialRequest;
  }

  /**
   * Starts a call on {@code conn} (from any thread). {@code initialRequest} is the inbound demand
   * of a stream or channel; {@code firstCompletes} says a channel's outbound half ends with {@code
   * first}. Takes ownership of {@code first}.
   */
  public static ClientCall start(
      ClientConnection conn,
      int kind,
      Message first,
      boolean firstCompletes,
      long initialRequest,
      StreamListener listener) {
    ClientCall call = new ClientCall(conn, kind, first, firstCompletes, initialRequest, listener);
    call.onLoop(call::open);
    return call;
  }

  private void onLoop(Runnable r) {
    if (loop.inEventLoop()) {
      r.run();
    } else {
      loop.execute(r);
    }
  }

  // ---- start -----------------------------------------------------------------------------------

  private void open() {
    Message m = first;
    first = null;
    if (done) {
      m.release(); // cancelled before it started
      return;
    }
    CallStarts.Start start;
    boolean noMessage;
    try {
      if (!m.hasMetadata()) {
        throw new StatusException(
            Status.of(
                Status.Code.INTERNAL,
                "the first message of a gRPC call must carry the RPC call metadata (service, method, headers)"));
      }
      start = conn.callStart(m.metadata());
      noMessage = CallMetadataCodec.noMessage(m.metadata());
      if (noMessage && (kind != REQUEST_CHANNEL || m.data().isReadable())) {
        throw new StatusException(
            Status.of(Status.Code.INTERNAL, "the no-message flag is only for a request-channel's empty first frame"));
      }
    } catch (StatusException e) {
      m.release();
      fail(e.status());
      return;
    }
    String refused = conn.refusal();
    int id = 0;
    if (refused == null) {
      id = h2.connection().local().incrementAndGetNextStreamId();
      if (id <= 0) {
        refused = "this HTTP/2 connection has used all its stream ids; open a new connection";
      }
    }
    if (refused == null) {
      h2.encoder().writeHeaders(h2.ctx(), id, start.headers(), 0, false, h2.newPromise());
      stream = h2.connection().stream(id);
      if (stream == null || stream.state() == Http2Stream.State.CLOSED) {
        // The HEADERS could not be written (too large for the server's header list limit, the
        // connection closing): no sink would ever hear of this stream again.
        stream = null;
        m.release();
        refused = conn.refusal();
        fail(
            refused != null
                ? Status.of(Status.Code.UNAVAILABLE, refused)
                : Status.of(
                    Status.Code.INTERNAL,
                    "the call's request HEADERS could not be sent: the server takes header lists of up to "
                        + h2.encoder().configuration().headersConfiguration().maxHeaderListSize()
                        + " bytes"));
        return;
      }
    }
    if (refused != null) {
      m.release();
      fail(Status.of(Status.Code.UNAVAILABLE, refused));
      return;
    }
    h2.attach(stream, this);
    conn.streamOpened();
    CallMetadata md = start.metadata();
    wantsMetadata = md.responseMetadata();
    if (md.hasTimeout()) {
      timeoutMillis = md.timeoutMillis();
      deadline = loop.schedule(this::deadlinePassed, timeoutMillis, TimeUnit.MILLISECONDS);
    }
    boolean end = kind != REQUEST_CHANNEL || firstCompletes;
    outboundDone = end;
    if (noMessage) {
      // A client stream without request messages: HEADERS, then END_STREAM with no message.
      m.release();
      if (end) {
        h2.encoder().writeData(h2.ctx(), stream.id(), Unpooled.EMPTY_BUFFER, 0, true, h2.newPromise());
      }
      conn.flushSoon();
      grant();
      return;
    }
    ByteBuf data = m.data().retain();
    m.release();
    ChannelPromise written = write(data, end);
    if (kind == FIRE_AND_FORGET) {
      written.addListener((ChannelFuture f) -> fireAndForgetWritten(f));
    }
    conn.flushSoon();
    grant();
  }

  private void fireAndForgetWritten(ChannelFuture f) {
    if (done) {
      return;
    }
    StreamListener l = listener;
    listener = StreamListener.DISCARDING; // the response, if any, is dropped
    if (f.isSuccess()) {
      l.onComplete();
    } else {
      l.onError(
          new StatusException(
              Status.of(Status.Code.UNAVAILABLE, "the request could not be sent: " + f.cause()), f.cause()));
    }
  }

  // ---- outbound ----------------------------------------------------------------------------------

  /** Frames and writes one message (released here); its bytes count as unsent until written. */
  private ChannelPromise write(ByteBuf message, boolean endStream) {
    ByteBuf framed = MessageFramer.frame(h2.ctx().alloc(), message, GrpcEncoding.IDENTITY);
    int n = framed.readableBytes();
    unsent += n;
    ChannelPromise p = h2.newPromise();
    p.addListener(
        f -> {
          unsent -= n;
          grant();
        });
    h2.encoder().writeData(h2.ctx(), stream.id(), framed, 0, endStream, p);
    return p;
  }

  /** Grants a channel's listener more requests while few bytes wait for the socket. */
  private void grant() {
    if (kind != REQUEST_CHANNEL || done || outboundDone || granted > 0 || unsent >= OUTBOUND_LOW_WATER) {
      return;
    }
    granted = OUTBOUND_BATCH;
    listener.onRequest(OUTBOUND_BATCH);
  }

  @Override
  public void next(Message message) {
    onLoop(() -> send(message));
  }

  private void send(Message message) {
    if (done || outboundDone || stream == null) {
      message.release();
      return;
    }
    if (granted <= 0) {
      message.release();
      failAndReset(
          Status.of(Status.Code.INTERNAL, "a request message was sent beyond the demand granted (onRequest)"));
      return;
    }
    granted--;
    ByteBuf data = message.data().retain();
    message.release();
    write(data, false);
    conn.flushSoon();
    grant();
  }

  @Override
  public void complete() {
    onLoop(
        () -> {
          if (done || outboundDone || stream == null) {
            return;
          }
          outboundDone = true;
          h2.encoder().writeData(h2.ctx(), stream.id(), Unpooled.EMPTY_BUFFER, 0, true, h2.newPromise());
          conn.flushSoon();
        });
  }

  @Override
  public void error(Throwable cause) {
    onLoop(
        () -> {
          if (!done) {
            failAndReset(
                Status.of(Status.Code.CANCELLED, "the client cancelled the call: " + cause), cause);
          }
        });
  }

  @Override
  public void cancel() {
    onLoop(
        () -> {
          if (done) {
            return;
          }
          end(); // first: the stream closing under reset() must not signal the listener
          listener = StreamListener.DISCARDING;
          reset();
        });
  }

  // ---- inbound -----------------------------------------------------------------------------------

  @Override
  public void request(long n) {
    onLoop(
        () -> {
          if (done) {
            return;
          }
          if (n <= 0) {
            failAndReset(
                Status.of(Status.Code.CANCELLED, "request(" + n + "): demand must be positive (Reactive Streams 3.9)"),
                new IllegalArgumentException("request(" + n + ")"));
            return;
          }
          demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
          drain();
          conn.flushSoon(); // the WINDOW_UPDATEs of the bytes taken
        });
  }

  @Override
  public void onHeaders(Http2Stream s, Http2Headers headers, boolean endStream) {
    if (done) {
      return;
    }
    if (!headersSeen) {
      if (ResponseStatus.isInterim(headers, endStream)) {
        return; // 100 Continue, 103 Early Hints: the response headers follow
      }
      headersSeen = true;
      Status bad = ResponseStatus.checkHeaders(headers, endStream);
      if (bad != null) {
        failAndReset(bad);
        return;
      }
      if (wantsMetadata && !readMetadata(headers, !endStream)) {
        return;
      }
      if (!endStream) {
        CharSequence name = headers.get(GrpcWire.GRPC_ENCODING);
        GrpcEncoding encoding = GrpcEncoding.of(name);
        if (encoding == null) {
          failAndReset(Status.of(Status.Code.INTERNAL, "the server's grpc-encoding '" + name + "' is not supported"));
          return;
        }
        deframer = new MessageDeframer(h2.ctx().alloc(), conn.maxInboundMessageSize(), encoding);
        return;
      }
    } else if (!endStream) {
      failAndReset(Status.of(Status.Code.INTERNAL, "the server sent HEADERS twice without ending the stream"));
      return;
    } else if (wantsMetadata && !readMetadata(headers, false)) {
      return;
    }
    serverEnded(ResponseStatus.fromTrailers(headers));
  }

  /** Keeps the metadata of response HEADERS ({@code initial}) or trailers; false if the call failed. */
  private boolean readMetadata(Http2Headers headers, boolean initial) {
    Headers md;
    try {
      md = GrpcMetadata.toHeaders(headers);
    } catch (StatusException e) {
      failAndReset(e.status());
      return false;
    }
    if (initial) {
      responseHeaders = md;
    } else {
      trailers = md;
    }
    return true;
  }

  /** Credit kept for the final metadata-only message (the caller added it for that). */
  private long reserved() {
    return wantsMetadata && kind != REQUEST_RESPONSE && demand != Long.MAX_VALUE ? 1 : 0;
  }

  /** The response headers not yet handed on (null when none), marking them handed on. */
  private Headers takeHeaders() {
    if (headersDelivered) {
      return null;
    }
    headersDelivered = true;
    return responseHeaders == null || responseHeaders.isEmpty() ? null : responseHeaders;
  }

  private static boolean hasAny(Headers h) {
    return h != null && !h.isEmpty();
  }

  @Override
  public int onData(Http2Stream s, ByteBuf data, int padding, boolean endStream) {
    if (done || terminal != null) {
      return data.readableBytes() + padding;
    }
    if (deframer == null) {
      failAndReset(Status.of(Status.Code.INTERNAL, "the server sent DATA before its response HEADERS"));
      return data.readableBytes() + padding;
    }
    deframer.add(data);
    if (endStream) {
      serverEnded(Status.of(Status.Code.INTERNAL, "the server ended the call without trailers (no grpc-status)"));
    } else {
      drain();
    }
    return padding;
  }

  /** The server's half ended with {@code status}: it is delivered after the messages before it. */
  private void serverEnded(Status status) {
    terminal = status;
    if (!outboundDone) {
      // The call is over for the server: what the client still writes goes nowhere.
      outboundDone = true;
      outboundCut = true;
      reset();
    }
    drain();
  }

  /** Hands buffered messages to the listener while it has demand, then the end, if it came. */
  private void drain() {
    if (draining) {
      return; // a listener's request(n) inside onNext: the loop below goes on
    }
    draining = true;
    try {
      while (!done && deframer != null && demand > reserved()) {
        ByteBuf m;
        try {
          m = deframer.next();
        } catch (StatusException e) {
          failAndReset(e.status());
          return;
        }
        giveBack();
        if (m == null) {
          break;
        }
        if (kind == REQUEST_RESPONSE && received > 0) {
          m.release();
          failAndReset(Status.of(Status.Code.INTERNAL, "the server sent more than one response to a unary call"));
          return;
        }
        received++;
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
        Message out = Message.of(m);
        if (wantsMetadata) {
          if (kind == REQUEST_RESPONSE) {
            held = out; // delivered with the trailers
            continue;
          }
          Headers h = takeHeaders();
          if (h != null) {
            out = Message.of(ResponseMetadataCodec.encode(alloc(), h, null, false), m);
          }
        }
        try {
          listener.onNext(out);
        } catch (RuntimeException e) {
          // A listener that throws ends its own call, never the connection the read runs for.
          failAndReset(Status.of(Status.Code.CANCELLED, "the response listener failed: " + e), e);
          return;
        }
      }
      if (!done && terminal != null) {
        boolean empty = deframer == null || (deframer.buffered() == 0 && !deframer.isMidMessage());
        if (empty) {
          if (needsFinalFrame() && demand == 0) {
            return; // the final metadata-only message waits for the caller's demand
          }
          finish(terminal);
        } else if (demand > 0) {
          fail(Status.of(Status.Code.INTERNAL, "the server ended the call in the middle of a message"));
        }
      }
    } finally {
      draining = false;
      if (deframer != null) {
        giveBack(); // what add() copied straight into a message, had no next() followed
      }
    }
  }

  /** Returns the bytes the deframer took to the HTTP/2 window. */
  private void giveBack() {
    int n = deframer.takeConsumed();
    if (n > 0 && stream != null && stream.state() != Http2Stream.State.CLOSED) {
      h2.consume(stream, n);
    }
  }

  @Override
  public void onReset(Http2Stream s, long errorCode) {
    if (!done && terminal == null) {
      fail(ResponseStatus.fromReset(errorCode));
    }
  }

  @Override
  public void onClosed(Http2Stream s) {
    conn.streamClosed();
    if (!done && terminal == null) {
      fail(conn.closedStatus(s));
    }
  }

  private void deadlinePassed() {
    if (!done) {
      failAndReset(
          Status.of(
              Status.Code.DEADLINE_EXCEEDED,
              "deadline of " + timeoutMillis + " ms exceeded on the client"));
    }
  }

  // ---- end ---------------------------------------------------------------------------------------

  /** True when a stream's OK end carries metadata the caller has not been given yet. */
  private boolean needsFinalFrame() {
    return wantsMetadata
        && kind != REQUEST_RESPONSE
        && terminal != null
        && terminal.isOk()
        && (hasAny(trailers) || (!headersDelivered && hasAny(responseHeaders)));
  }

  private void finish(Status status) {
    if (!status.isOk()) {
      if (wantsMetadata) {
        Headers h = takeHeaders();
        if (h != null || hasAny(trailers)) {
          // The status travels with the metadata as an RPC error of the RSocket binding does.
          failWith(new ApplicationErrorException(RpcErrors.encode(status, h, trailers)));
          return;
        }
      }
      fail(status);
      return;
    }
    if (kind == REQUEST_RESPONSE && received == 0) {
      fail(Status.of(Status.Code.INTERNAL, "the server ended a unary call without a response"));
      return;
    }
    Message last = null;
    if (wantsMetadata) {
      Headers h = takeHeaders();
      if (kind == REQUEST_RESPONSE) {
        last = held;
        held = null;
        if (h != null || hasAny(trailers)) {
          ByteBuf data = last.data().retain();
          last.release();
          last = Message.of(ResponseMetadataCodec.encode(alloc(), h, trailers, false), data);
        }
      } else if (h != null || hasAny(trailers)) {
        last = Message.of(ResponseMetadataCodec.encode(alloc(), h, trailers, true), Unpooled.EMPTY_BUFFER);
      }
    }
    end();
    StreamListener l = listener;
    listener = StreamListener.DISCARDING;
    if (last != null) {
      l.onNext(last);
    }
    l.onComplete();
    if (outboundCut) {
      l.onCancel(); // stop the requests still coming
    }
  }

  private void failAndReset(Status status) {
    failAndReset(status, null);
  }

  /** Fails the call and resets its stream (RST_STREAM CANCEL). */
  private void failAndReset(Status status, Throwable cause) {
    fail(status, cause, true);
  }

  private void fail(Status status) {
    fail(status, null, false);
  }

  private void fail(Status status, Throwable cause, boolean reset) {
    if (done) {
      return;
    }
    end();
    StreamListener l = listener;
    listener = StreamListener.DISCARDING;
    if (reset) {
      reset(); // after end(): the stream closing under it must not signal the listener
    }
    l.onError(cause == null ? new StatusException(status) : new StatusException(status, cause));
  }

  private void failWith(Throwable error) {
    if (done) {
      return;
    }
    end();
    StreamListener l = listener;
    listener = StreamListener.DISCARDING;
    l.onError(error);
  }

  /** The call is over here: no more signals, nothing held. */
  private void end() {
    done = true;
    outboundDone = true;
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
    if (deframer != null) {
      deframer.close();
    }
    if (held != null) {
      held.release();
      held = null;
    }
  }

  /** RST_STREAM CANCEL, unless the stream is closed already. */
  private void reset() {
    if (stream != null && stream.state() != Http2Stream.State.CLOSED) {
      // Through the encoder: netty's builder counts the RST_STREAMs sent (MadeYouReset).
      h2.encoder().writeRstStream(h2.ctx(), stream.id(), Http2Error.CANCEL.code(), h2.newPromise());
      conn.flushSoon();
    }
  }

  @Override
  public Executor executor() {
    return loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return conn.channel().alloc();
  }
}
