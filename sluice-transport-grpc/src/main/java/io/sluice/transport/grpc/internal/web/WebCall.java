package io.sluice.transport.grpc.internal.web;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.HandlerFailures;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.transport.grpc.internal.AbstractServerCall;
import io.sluice.transport.http2.internal.ReadBudget;
import io.sluice.transport.grpc.internal.ResponseAllowance;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One gRPC-Web or HTTP/JSON call (a unary or server-streaming method: one request message): the
 * {@link ServerCall} handed to the method's handler.
 *
 * <p><b>Request.</b> The body is collected up to its limit (the largest message accepted, plus
 * gRPC-Web's prefix, in base64 for {@code -text}), copied into heap chunks of at most 16 KiB that
 * are never regrown, so a body costs about its own size; they are not pooled, so that what a
 * connection's bodies held goes back to the heap once released, not to a pool that keeps it; a
 * body over it is
 * refused as it arrives (RESOURCE_EXHAUSTED; HTTP 413 for JSON) and never held. Its bytes are
 * reserved from the connection's {@link ReadBudget}, which the gRPC calls of the connection share
 * too, until the body is decoded or the call ends; a body that would exceed it is refused
 * RESOURCE_EXHAUSTED (HTTP 429 for JSON). A body not complete within the request body timeout
 * of its headers is refused DEADLINE_EXCEEDED (HTTP 408 for JSON). The handler starts once the
 * body is complete, and gets the message when it asks for it.
 *
 * <p><b>Response.</b> gRPC-Web: headers, each message as a data frame, the status as the trailers
 * frame ({@code 0x80}); a call that ends before its first message answers trailers-only
 * (status in the headers). JSON: a unary method's answer is sent whole at the end (200 and the
 * message, or the status's HTTP status and {@code {"code","message"}}); a server-streaming one's
 * messages as lines of NDJSON, ended by an {@code {"error": {...}}} line if it fails after the
 * first. Responses are allowed a batch at a time ({@link Listener#onReady}), more as earlier ones
 * are written, so a caller that does not read stops the handler; one that ignores {@code onReady}
 * fails with RESOURCE_EXHAUSTED once 64 MiB wait.
 *
 * <p><b>Threads.</b> State lives on the exchange's event loop; the {@link ServerCall} methods hop
 * there from other threads, and headers, messages and the close keep the order the handler made
 * them in whatever threads it used (once some wait for the loop, the rest queue behind them). An
 * atomic flag ends the call once.
 *
 * <p>What it shares with the gRPC call (the {@link ServerCall} plumbing, starting the handler, the
 * deadline, counting responses, the end status) is {@link AbstractServerCall}'s.
 */
final class WebCall<Req extends MessageLite, Resp extends MessageLite> extends AbstractServerCall<Req, Resp> {

  private final WebExchange ex;
  private final WebKind kind;
  private final long maxBody;
  private final int maxMessage;
  private final Cors cors;
  private final CharSequence origin;
  private final JsonCodec json;
  private final ReadBudget budget;
  /** The largest chunk a body is copied into. */
  private static final int BODY_CHUNK = 16 << 10;
  /** The smallest. */
  private static final int MIN_CHUNK = 1024;

  /** Headers and messages handed to the loop and not written yet: what comes after waits for them. */
  private final AtomicInteger queued = new AtomicInteger();

  // Event-loop state.
  private boolean done; // the response is over (or the caller gone): nothing more is written
  /** The full chunks of the body so far (null until the first); {@link #tail} is being filled. */
  private CompositeByteBuf body;
  private ByteBuf tail;
  /** Bytes of the body so far, all reserved from {@link #budget}. */
  private long reserved;
  private ScheduledFuture<?> bodyTimer;
  private Req request;
  private boolean delivered;
  private boolean headStarted;
  private Headers pendingHeaders;
  private ByteBuf pendingJson; // a unary JSON answer, sent at close

  WebCall(
      WebExchange ex,
      WebKind kind,
      ServerMethodDefinition<?, ?> def,
      CallMetadata metadata,
      long timeoutNanos,
      int maxMessage,
      Cors cors,
      CharSequence origin,
      JsonCodec json,
      ReadBudget budget,
      long bodyTimeoutNanos,
      RpcInstrumentation.CallObserver observer,
      long startNanos) {
    super(ex.executor(), def, metadata, timeoutNanos, observer, startNanos, ResponseAllowance.Connection.of(ex.channel()));
    this.ex = ex;
    this.kind = kind;
    this.maxMessage = maxMessage;
    this.maxBody = maxBody(kind, maxMessage);
    this.cors = cors;
    this.origin = origin;
    this.json = json;
    this.budget = budget;
    startDeadline();
    bodyTimer = loop.schedule(() -> bodyTimedOut(bodyTimeoutNanos), bodyTimeoutNanos, TimeUnit.NANOSECONDS);
  }

  /** The largest request body for {@code maxMessage}: one message, framed, in base64 for text. */
  static long maxBody(WebKind kind, int maxMessage) {
    long framed = maxMessage + (long) GrpcWebCodec.PREFIX;
    return switch (kind) {
      case GRPC_WEB -> framed;
      case GRPC_WEB_TEXT -> (framed + 2) / 3 * 4 + 64; // a few padded segments and line breaks
      case JSON -> maxMessage;
    };
  }

  // ---- the request, from the transport, on the event loop ---------------------------------------

  /** Part of the request's body ({@code chunk} is borrowed). */
  void onBody(ByteBuf chunk) {
    if (ended.get() || !chunk.isReadable()) {
      ex.readMore();
      return;
    }
    int n = chunk.readableBytes();
    if (reserved + n > maxBody) {
      refuseBody(
          Status.of(
              Status.Code.RESOURCE_EXHAUSTED,
              "request body larger than " + maxBody + " bytes (the largest message accepted is " + maxMessage + " bytes)"),
          413);
      return;
    }
    if (!budget.reserve(n)) {
      refuseBody(
          Status.of(
              Status.Code.RESOURCE_EXHAUSTED,
              "the requests being read on this connection would hold more than " + budget.max() + " bytes"),
          0);
      return;
    }
    reserved += n;
    // Grows with the bytes that came (no size the caller declares is trusted).
    for (int from = chunk.readerIndex(), left = n; left > 0; ) {
      if (tail == null) {
        int size = Math.max(MIN_CHUNK, Math.min(left, BODY_CHUNK));
        tail = Unpooled.buffer(size, size);
      }
      int k = Math.min(left, tail.maxWritableBytes());
      tail.writeBytes(chunk, from, k);
      from += k;
      left -= k;
      if (tail.maxWritableBytes() == 0) {
        keepTail();
      }
    }
    ex.readMore();
  }

  /** Adds the chunk being filled to the body's chunks. */
  private void keepTail() {
    if (body == null) {
      body = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    }
    body.addComponent(true, tail);
    tail = null;
  }

  /**
   * Answers a request whose body is refused ({@code jsonStatus}: a plain answer with that HTTP
   * status for JSON; 0: the status's own) and ends the call; the handler has not started.
   */
  private void refuseBody(Status s, int jsonStatus) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    done = true;
    if (kind == WebKind.JSON && jsonStatus != 0) {
      WebResponses.plain(ex, jsonStatus, cors, origin, s.description());
    } else {
      WebResponses.answer(ex, kind, cors, origin, s, null);
    }
    wrapUp(s);
  }

  private void bodyTimedOut(long nanos) {
    bodyTimer = null;
    refuseBody(
        Status.of(
            Status.Code.DEADLINE_EXCEEDED,
            "request body not complete within " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms of its headers"),
        408);
  }

  private void stopBodyTimer() {
    ScheduledFuture<?> t = bodyTimer;
    if (t != null) {
      bodyTimer = null;
      t.cancel(false);
    }
  }

  /** The body is decoded or dropped: its bytes no longer count against the connection's budget. */
  private void releaseBody() {
    if (tail != null) {
      tail.release();
      tail = null;
    }
    if (body != null) {
      body.release();
      body = null;
    }
    budget.release(reserved);
    reserved = 0;
  }

  /** The request's body is complete: decodes it and starts the handler. */
  void onBodyEnd() {
    if (ended.get()) {
      return;
    }
    stopBodyTimer();
    if (tail != null) {
      keepTail();
    }
    ByteBuf b = body != null ? body.retain() : Unpooled.EMPTY_BUFFER;
    try {
      request = decode(b);
    } catch (StatusException e) {
      fail(e.status());
      return;
    } finally {
      b.release();
      releaseBody();
    }
    if (!startHandler()) {
      return;
    }
    try {
      listener.onReady(allowance.first());
    } catch (RuntimeException e) {
      fail(HandlerFailures.status(def.method(), e));
      return;
    }
    deliver();
  }

  private Req decode(ByteBuf b) {
    String name = def.method().fullName();
    if (kind == WebKind.JSON) {
      return json.parse(b.toString(StandardCharsets.UTF_8));
    }
    ByteBuf bytes = kind == WebKind.GRPC_WEB_TEXT ? GrpcWebCodec.fromText(b) : b.retain();
    try {
      ByteBuf message = GrpcWebCodec.oneMessage(bytes, name);
      try {
        return ProtoMessages.parse(def.method().requestParser(), message);
      } finally {
        message.release();
      }
    } finally {
      bytes.release();
    }
  }

  /** The caller went away (connection closed, stream reset) before the call ended. */
  void onPeerGone() {
    peerGone(Status.of(Status.Code.CANCELLED, "the caller went away before the call ended"));
  }

  private void deliver() {
    if (delivered || demand <= 0 || listener == null || ended.get()) {
      return;
    }
    delivered = true;
    Req r = request;
    request = null;
    try {
      listener.onMessage(r);
      if (!ended.get()) {
        listener.onHalfClose();
      }
    } catch (RuntimeException e) {
      fail(HandlerFailures.status(def.method(), e));
    }
  }

  // ---- ServerCall -------------------------------------------------------------------------------

  @Override
  protected void demanded() {
    deliver();
  }

  @Override
  public void sendHeaders(Headers headers) {
    if (ended.get()) {
      return;
    }
    if (!loop.inEventLoop() || queued.get() > 0) {
      queued.incrementAndGet();
      loop.execute(
          () -> {
            queued.decrementAndGet();
            writeHeaders(headers);
          });
      return;
    }
    writeHeaders(headers);
  }

  private void writeHeaders(Headers headers) {
    if (done) {
      return;
    }
    if (kind.isGrpcWeb() && !headStarted) {
      startHead(headers);
    } else if (!headStarted && pendingHeaders == null) {
      pendingHeaders = headers; // JSON: sent with the answer
    }
  }

  private void startHead(Headers md) {
    headStarted = true;
    WebResponses.AsciiContentType type =
        kind == WebKind.JSON ? WebResponses.AsciiContentType.NDJSON : WebResponses.AsciiContentType.of(kind);
    ex.startStream(200, WebResponses.headers(type, cors, origin, md != null ? md : pendingHeaders));
  }

  @Override
  public void sendMessage(Resp message) {
    if (ended.get()) {
      return;
    }
    ByteBuf out;
    try {
      if (kind == WebKind.JSON) {
        byte[] text = json.print(message);
        boolean line = def.method().kind().serverStreams();
        out = ex.alloc().buffer(text.length + 1).writeBytes(text);
        if (line) {
          out.writeByte('\n');
        }
      } else {
        out = GrpcWebCodec.frame(ex.alloc(), ProtoMessages.encode(ex.alloc(), message));
        if (kind == WebKind.GRPC_WEB_TEXT) {
          out = GrpcWebCodec.toText(ex.alloc(), out);
        }
      }
    } catch (StatusException e) {
      close(e.status());
      return;
    }
    ByteBuf o = out;
    if (loop.inEventLoop() && queued.get() == 0) {
      writeMessage(o);
    } else {
      // In the order the handler sent them, and before a close that follows (see close).
      queued.incrementAndGet();
      loop.execute(
          () -> {
            queued.decrementAndGet();
            writeMessage(o);
          });
    }
  }

  private void writeMessage(ByteBuf out) {
    if (done) {
      out.release();
      return;
    }
    if (!countResponse(out)) {
      return;
    }
    if (kind == WebKind.JSON && !def.method().kind().serverStreams()) {
      pendingJson = out; // the answer goes out with its status, at close
      return;
    }
    if (!headStarted) {
      startHead(null);
    }
    int bytes = take(out);
    if (bytes < 0) {
      return;
    }
    ex.write(out, () -> written(bytes));
  }

  @Override
  protected void finishInOrder(Status status, Headers trailers) {
    if (loop.inEventLoop() && queued.get() == 0) {
      finish(status, trailers);
    } else {
      // After the headers and messages the handler handed over before (the loop runs in order).
      loop.execute(() -> finish(status, trailers));
    }
  }

  @Override
  protected void finish(Status status, Headers trailers) {
    if (done) {
      return; // the caller went away meanwhile
    }
    done = true;
    Status end = endStatus(status);
    if (kind.isGrpcWeb()) {
      if (!headStarted) {
        WebResponses.answer(ex, kind, cors, origin, end, trailers);
      } else {
        ByteBuf t = GrpcWebCodec.trailers(ex.alloc(), end, trailers);
        ex.write(kind == WebKind.GRPC_WEB_TEXT ? GrpcWebCodec.toText(ex.alloc(), t) : t, () -> {});
        ex.end();
      }
    } else if (!headStarted) {
      ByteBuf answer = pendingJson;
      pendingJson = null;
      if (end.isOk()) {
        Http2Headers h =
            WebResponses.headers(
                def.method().kind().serverStreams() ? WebResponses.AsciiContentType.NDJSON : WebResponses.AsciiContentType.JSON,
                cors,
                origin,
                pendingHeaders,
                trailers);
        ex.respond(200, h, answer != null ? answer : Unpooled.EMPTY_BUFFER);
      } else {
        if (answer != null) {
          answer.release();
        }
        WebResponses.answer(ex, kind, cors, origin, end, null);
      }
    } else {
      if (!end.isOk()) {
        ex.write(Unpooled.wrappedBuffer(JsonCodec.errorLine(end)), () -> {});
      }
      ex.end();
    }
    wrapUp(end);
  }

  @Override
  protected void cleanUp() {
    done = true;
    stopBodyTimer();
    releaseBody();
    if (pendingJson != null) {
      pendingJson.release();
      pendingJson = null;
    }
  }
}
