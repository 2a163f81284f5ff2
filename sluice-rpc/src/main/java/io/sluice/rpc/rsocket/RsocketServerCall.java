package io.sluice.rpc.rsocket;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.HandlerFailures;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.UnaryCallHandler;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * One server call over one RSocket stream: the {@link ServerCall} handed to the method handler and
 * the {@link StreamListener} of the stream.
 *
 * <p>Inbound state (the pending first message, half-close) lives on the connection's event loop;
 * {@link #request} from another thread hops there. Sends and {@link #close} go straight to the
 * thread-safe {@link StreamHandle}, which keeps their order; an atomic flag makes the call end
 * exactly once (handler close, peer cancel, or deadline, whichever comes first).
 */
final class RsocketServerCall<Req extends MessageLite, Resp extends MessageLite>
    implements ServerCall<Req, Resp>, StreamListener {
  private final ServerMethodDefinition<Req, Resp> def;
  private final CallMetadata metadata;
  private final StreamHandle handle; // null for fire-and-forget
  private final RpcInstrumentation.CallObserver observer;
  private final long startNanos;
  private final RpcResponder.Interaction interaction;
  private volatile int closed; // 0 open, 1 ended
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<RsocketServerCall> CLOSED =
      AtomicIntegerFieldUpdater.newUpdater(RsocketServerCall.class, "closed");

  // Event-loop state (fire-and-forget: the calling thread, guarded by the call's own monitor).
  private Message firstPending;
  private volatile Listener<Req> listener;
  private long requestedBeforeStart;
  private volatile boolean inboundComplete;
  private boolean halfCloseDelivered;
  private boolean requested; // the handler asked for requests: the half-close may be delivered
  private ScheduledFuture<?> deadlineTimer;

  // Response metadata, only for callers that asked for it (call metadata flag 0x20).
  private final boolean sendsMetadata;
  private volatile Headers headersToSend; // set by sendHeaders, sent with the first response
  private volatile boolean headersSent;
  private boolean creditReserved; // event loop: the caller's extra credit for the final frame

  private volatile boolean firstResponseSeen;
  /**
   * Unary over request-response: the response, sent with the completion. Set on the handler's
   * thread and taken by whoever ends the call (possibly the loop, at the same time): both sides
   * swap it atomically, so it is sent or released exactly once.
   */
  private volatile Message pendingResponse;

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<RsocketServerCall, Message> PENDING_RESPONSE =
      AtomicReferenceFieldUpdater.newUpdater(RsocketServerCall.class, Message.class, "pendingResponse");

  @SuppressWarnings("unchecked")
  RsocketServerCall(
      ServerMethodDefinition<?, ?> def,
      CallMetadata metadata,
      StreamHandle handle,
      RpcInstrumentation.CallObserver observer,
      long startNanos,
      RpcResponder.Interaction interaction,
      Message first,
      boolean inboundComplete) {
    this.def = (ServerMethodDefinition<Req, Resp>) def;
    this.metadata = metadata;
    this.handle = handle;
    this.observer = observer;
    this.startNanos = startNanos;
    this.interaction = interaction;
    this.firstPending = first;
    this.inboundComplete = inboundComplete;
    this.sendsMetadata =
        metadata.responseMetadata() && handle != null && interaction != RpcResponder.Interaction.FIRE_AND_FORGET;
  }

  /** On the event loop, from the responder method. */
  void start() {
    if (handle != null && metadata.hasTimeout()) {
      Executor ex = handle.executor();
      if (ex instanceof ScheduledExecutorService) {
        deadlineTimer =
            ((ScheduledExecutorService) ex)
                .schedule(this::deadlinePassed, metadata.timeoutMillis(), TimeUnit.MILLISECONDS);
      }
    }
    ServerCallHandler<Req, Resp> h = def.handler();
    if (interaction == RpcResponder.Interaction.RESPONSE
        && firstPending != null
        && h instanceof UnaryCallHandler) {
      startUnary((UnaryCallHandler<Req, Resp>) h);
      return;
    }
    Listener<Req> l;
    try {
      l = h.startCall(this);
    } catch (RuntimeException e) {
      HandlerFailures.close(this, e);
      releasePending();
      return;
    }
    if (l == null) {
      close(Status.of(Status.Code.INTERNAL, "handler of " + def.method().fullName() + " returned no listener"));
      releasePending();
      return;
    }
    listener = l;
    if (handle == null) {
      // Fire-and-forget: its request is handed over under the call's monitor (request() and a
      // close from another thread take it too), so it is released or read exactly once.
      synchronized (this) {
        startReading();
      }
    } else {
      startReading();
    }
  }

  /** After the handler started: the request held for it is read as demanded, or released. */
  private void startReading() {
    if (closed != 0) { // ended in startCall (e.g. an interceptor refused it): nothing will be read
      releasePending();
      return;
    }
    long n = requestedBeforeStart;
    requestedBeforeStart = 0;
    if (n > 0) {
      doRequest(n);
    }
  }

  /**
   * A unary call whose handler takes the request at once: parsed here and handed over with the
   * start, no request round trip (the request-response's one request has arrived, and its caller
   * sends nothing more).
   */
  private void startUnary(UnaryCallHandler<Req, Resp> h) {
    Message m = firstPending;
    firstPending = null;
    requested = true;
    halfCloseDelivered = true;
    CallObservation.messageReceived(observer, m.data().readableBytes());
    Req req;
    try {
      req = ProtoMessages.parse(def.method().requestParser(), m);
    } catch (StatusException e) {
      closeOnce(e.status());
      return;
    }
    Listener<Req> l;
    try {
      l = h.startUnary(this, req);
    } catch (RuntimeException e) {
      HandlerFailures.close(this, e);
      return;
    }
    if (l == null) {
      close(Status.of(Status.Code.INTERNAL, "handler of " + def.method().fullName() + " returned no listener"));
      return;
    }
    listener = l;
  }

  @Override
  public CallMetadata metadata() {
    return metadata;
  }

  @Override
  public MethodDescriptor<Req, Resp> method() {
    return def.method();
  }

  @Override
  public boolean isClosed() {
    return closed != 0;
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      close(Status.of(Status.Code.INTERNAL, "request(" + n + "): must be positive"));
      return;
    }
    if (handle == null) {
      synchronized (this) {
        doRequest(n);
      }
      return;
    }
    Executor ex = handle.executor();
    if (ex instanceof EventExecutor && !((EventExecutor) ex).inEventLoop()) {
      ex.execute(() -> doRequest(n));
    } else {
      doRequest(n);
    }
  }

  private void doRequest(long n) {
    if (listener == null) {
      requestedBeforeStart = saturatedAdd(requestedBeforeStart, n);
      return;
    }
    if (closed != 0) {
      releasePending();
      return;
    }
    requested = true;
    Message first = firstPending;
    if (first == null && inboundComplete) {
      deliverHalfClose(); // no request message at all (the no-message flag)
      return;
    }
    if (first != null) {
      firstPending = null;
      if (!deliver(first)) {
        return;
      }
      if (n != Long.MAX_VALUE) {
        n--;
      }
      if (inboundComplete) {
        deliverHalfClose();
        return;
      }
    }
    if (n > 0 && !inboundComplete && handle != null && closed == 0) {
      handle.request(n);
    }
  }

  private boolean deliver(Message m) {
    CallObservation.messageReceived(observer, m.data().readableBytes());
    Req req;
    try {
      req = ProtoMessages.parse(def.method().requestParser(), m);
    } catch (StatusException e) {
      if (closeOnce(e.status())) {
        listener.onCancel();
      }
      return false;
    }
    try {
      listener.onMessage(req);
    } catch (RuntimeException e) {
      listenerFailed(e);
    }
    return closed == 0;
  }

  private void deliverHalfClose() {
    if (!halfCloseDelivered && closed == 0) {
      halfCloseDelivered = true;
      try {
        listener.onHalfClose();
      } catch (RuntimeException e) {
        listenerFailed(e);
      }
    }
  }

  /**
   * A listener callback threw: the call ends as a handler's own failure ends it ({@link
   * HandlerFailures}), not with the exception's text, which the core would otherwise send.
   */
  private void listenerFailed(RuntimeException e) {
    HandlerFailures.close(this, e);
  }

  @Override
  public void sendMessage(Resp message) {
    if ((closed != 0) || handle == null) {
      return;
    }
    Message m;
    try {
      m = ProtoMessages.next(handle.alloc(), message);
    } catch (StatusException e) {
      close(e.status());
      return;
    }
    if (sendsMetadata && !headersSent && interaction != RpcResponder.Interaction.RESPONSE) {
      headersSent = true;
      Headers h = headersToSend;
      if (h != null && !h.isEmpty()) {
        m = withMetadata(m, h, null, false);
      }
    }
    if (observer != RpcInstrumentation.CallObserver.NONE) {
      CallObservation.messageSent(observer, m.data().readableBytes());
      if (!firstResponseSeen && CallObservation.observesFirstResponse(observer)) {
        firstResponseSeen = true;
        CallObservation.firstResponse(observer, startNanos);
      }
    }
    if (interaction == RpcResponder.Interaction.RESPONSE) {
      Message old = PENDING_RESPONSE.getAndSet(this, m);
      if (old != null) {
        old.release();
        close(Status.of(Status.Code.INTERNAL, def.method().fullName() + " sent more than one response"));
      }
      if (closed != 0) {
        // The call ended while the response was encoded (a cancel or the deadline on the loop):
        // the one that ended it may have looked before the response was stored. Take it back.
        Message late = PENDING_RESPONSE.getAndSet(this, null);
        if (late != null) {
          late.release();
        }
      }
      return;
    }
    handle.next(m);
  }

  /**
   * Keeps {@code headers} for the first response (or the call's end) when the caller asked for
   * response metadata; ignored otherwise, after the first response, or when called again.
   */
  @Override
  public void sendHeaders(Headers headers) {
    java.util.Objects.requireNonNull(headers, "headers");
    if (sendsMetadata && closed == 0 && !headersSent && headersToSend == null) {
      headersToSend = headers;
    }
  }

  @Override
  public void close(Status status) {
    closeOnce(status, null);
  }

  @Override
  public void close(Status status, Headers trailers) {
    closeOnce(status, java.util.Objects.requireNonNull(trailers, "trailers"));
  }

  private boolean closeOnce(Status status) {
    return closeOnce(status, null);
  }

  /** The headers not yet sent, taken now (null when none or when the caller did not ask). */
  private Headers takeUnsentHeaders() {
    if (!sendsMetadata || headersSent) {
      return null;
    }
    headersSent = true;
    Headers h = headersToSend;
    return h == null || h.isEmpty() ? null : h;
  }

  /** {@code m} (released) as a message with response metadata. */
  private Message withMetadata(Message m, Headers headers, Headers trailers, boolean noMessage) {
    ByteBuf md = ResponseMetadataCodec.encode(handle.alloc(), headers, trailers, noMessage);
    Message out = Message.of(md, m.data().retain());
    m.release();
    return out;
  }

  /** Ends the call if it has not ended; true if this call ended it. */
  private boolean closeOnce(Status status, Headers trailers) {
    if (!CLOSED.compareAndSet(this, 0, 1)) {
      return false;
    }
    releasePendingInLoop();
    ScheduledFuture<?> t = deadlineTimer;
    if (t != null) {
      t.cancel(false);
    }
    Status end = status;
    if (handle != null) {
      if (status.isOk()) {
        if (interaction == RpcResponder.Interaction.RESPONSE) {
          Message m = PENDING_RESPONSE.getAndSet(this, null);
          if (m == null) {
            end = Status.of(Status.Code.INTERNAL, def.method().fullName() + " completed without a response");
            handle.error(errorOf(end, trailers));
          } else {
            Headers h = takeUnsentHeaders();
            if (sendsMetadata && (h != null || hasAny(trailers))) {
              m = withMetadata(m, h, trailers, false);
            }
            handle.nextAndComplete(m);
          }
        } else {
          Headers h = takeUnsentHeaders();
          if (sendsMetadata && (h != null || hasAny(trailers))) {
            // The final frame: no response message, only the metadata (it uses the extra credit
            // the caller granted for it).
            handle.nextAndComplete(
                Message.of(
                    ResponseMetadataCodec.encode(handle.alloc(), h, trailers, true), Unpooled.EMPTY_BUFFER));
          } else {
            handle.complete();
          }
          if (interaction == RpcResponder.Interaction.CHANNEL && !inboundComplete) {
            handle.cancel(); // the call is over: stop the caller's outbound half too
          }
        }
      } else {
        Message m = PENDING_RESPONSE.getAndSet(this, null);
        if (m != null) {
          m.release();
        }
        handle.error(errorOf(status, trailers));
      }
    }
    RpcResponder.end(observer, end, startNanos);
    return true;
  }

  private Throwable errorOf(Status status, Headers trailers) {
    if (!sendsMetadata) {
      return RpcErrors.toWire(status);
    }
    return RpcErrors.toWire(status, takeUnsentHeaders(), trailers);
  }

  private static boolean hasAny(Headers h) {
    return h != null && !h.isEmpty();
  }

  /** Ends the call without telling the peer (it already knows: it cancelled or failed). */
  private boolean closeQuietly(Status status) {
    if (!CLOSED.compareAndSet(this, 0, 1)) {
      return false;
    }
    ScheduledFuture<?> t = deadlineTimer;
    if (t != null) {
      t.cancel(false);
    }
    Message m = PENDING_RESPONSE.getAndSet(this, null);
    if (m != null) {
      m.release();
    }
    RpcResponder.end(observer, status, startNanos);
    return true;
  }

  private void deadlinePassed() {
    if (closeOnce(
        Status.of(
            Status.Code.DEADLINE_EXCEEDED,
            "deadline of " + metadata.timeoutMillis() + " ms exceeded on the server"))) {
      releasePending();
      if (listener != null) {
        listener.onCancel();
      }
    }
  }

  /**
   * A call ended before its handler asked for the request (a handler or interceptor that closes it
   * from another thread, never requesting): the request still held is released, on the event loop
   * where it is otherwise handed over. Off the loop, a null read means the loop already took it
   * (the field only ever goes from the request to null, and the closing thread saw it set), so
   * only a call that still holds it pays for the hop.
   */
  private void releasePendingInLoop() {
    if (handle == null) {
      synchronized (this) {
        releasePending();
      }
      return;
    }
    Executor ex = handle.executor();
    if (!(ex instanceof EventExecutor) || ((EventExecutor) ex).inEventLoop()) {
      releasePending();
    } else if (firstPending != null) {
      try {
        ex.execute(this::releasePending);
      } catch (java.util.concurrent.RejectedExecutionException loopGone) {
        releasePending(); // the loop has stopped: nothing else touches the call's request now
      }
    }
  }

  private void releasePending() {
    Message m = firstPending;
    if (m != null) {
      firstPending = null;
      m.release();
    }
  }

  // StreamListener: the stream's signals, on the event loop.

  @Override
  public void onNext(Message message) {
    if ((closed != 0) || listener == null) {
      message.release();
      return;
    }
    deliver(message);
  }

  @Override
  public void onComplete() {
    inboundComplete = true;
    // Delivered once the handler has asked for requests (a handler that subscribes to its request
    // stream later, as the blocking flavor's does, would otherwise miss it); doRequest delivers it
    // then.
    if (firstPending == null && listener != null && requested) {
      deliverHalfClose();
    }
  }

  @Override
  public void onError(Throwable cause) {
    peerEnded(Status.of(Status.Code.CANCELLED, "the caller's stream failed: " + cause.getMessage()));
  }

  @Override
  public void onCancel() {
    peerEnded(Status.of(Status.Code.CANCELLED, "cancelled by the caller"));
  }

  private void peerEnded(Status status) {
    releasePending();
    if (closeQuietly(status) && listener != null) {
      listener.onCancel();
    }
  }

  @Override
  public void onRequest(long n) {
    if (sendsMetadata && !creditReserved && interaction != RpcResponder.Interaction.RESPONSE) {
      // The caller adds one to its first demand for the final metadata frame: never spend it on a
      // response message.
      creditReserved = true;
      if (n != Long.MAX_VALUE && --n == 0) {
        return;
      }
    }
    if (closed == 0 && listener != null) {
      try {
        listener.onReady(n);
      } catch (RuntimeException e) {
        listenerFailed(e);
      }
    }
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
