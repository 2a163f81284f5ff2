package io.sluice.rpc.rsocket;

import com.google.protobuf.MessageLite;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

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
  private ScheduledFuture<?> deadlineTimer;

  private volatile boolean firstResponseSeen;
  private volatile Message pendingResponse; // unary over request-response: sent with the completion

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
    Listener<Req> l;
    try {
      l = def.handler().startCall(this);
    } catch (RuntimeException e) {
      close(Status.fromThrowable(e));
      releasePending();
      return;
    }
    if (l == null) {
      close(Status.of(Status.Code.INTERNAL, "handler of " + def.method().fullName() + " returned no listener"));
      releasePending();
      return;
    }
    listener = l;
    long n = requestedBeforeStart;
    requestedBeforeStart = 0;
    if (n > 0) {
      doRequest(n);
    }
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
    Message first = firstPending;
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
    Req req;
    try {
      req = ProtoMessages.parse(def.method().requestParser(), m);
    } catch (StatusException e) {
      if (closeOnce(e.status())) {
        listener.onCancel();
      }
      return false;
    }
    listener.onMessage(req);
    return closed == 0;
  }

  private void deliverHalfClose() {
    if (!halfCloseDelivered && closed == 0) {
      halfCloseDelivered = true;
      listener.onHalfClose();
    }
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
    if (observer != RpcInstrumentation.CallObserver.NONE && !firstResponseSeen) {
      firstResponseSeen = true;
      CallObservation.firstResponse(observer, startNanos);
    }
    if (interaction == RpcResponder.Interaction.RESPONSE) {
      Message old = pendingResponse;
      pendingResponse = m;
      if (old != null) {
        old.release();
        close(Status.of(Status.Code.INTERNAL, def.method().fullName() + " sent more than one response"));
      }
      return;
    }
    handle.next(m);
  }

  @Override
  public void close(Status status) {
    closeOnce(status);
  }

  /** Ends the call if it has not ended; true if this call ended it. */
  private boolean closeOnce(Status status) {
    if (!CLOSED.compareAndSet(this, 0, 1)) {
      return false;
    }
    ScheduledFuture<?> t = deadlineTimer;
    if (t != null) {
      t.cancel(false);
    }
    Status end = status;
    if (handle != null) {
      if (status.isOk()) {
        if (interaction == RpcResponder.Interaction.RESPONSE) {
          Message m = pendingResponse;
          pendingResponse = null;
          if (m == null) {
            end = Status.of(Status.Code.INTERNAL, def.method().fullName() + " completed without a response");
            handle.error(RpcErrors.toWire(end));
          } else {
            handle.nextAndComplete(m);
          }
        } else {
          handle.complete();
          if (interaction == RpcResponder.Interaction.CHANNEL && !inboundComplete) {
            handle.cancel(); // the call is over: stop the caller's outbound half too
          }
        }
      } else {
        Message m = pendingResponse;
        pendingResponse = null;
        if (m != null) {
          m.release();
        }
        handle.error(RpcErrors.toWire(status));
      }
    }
    RpcResponder.end(observer, end, startNanos);
    return true;
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
    Message m = pendingResponse;
    pendingResponse = null;
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
    if (firstPending == null && listener != null) {
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
    if (closed == 0 && listener != null) {
      listener.onReady(n);
    }
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }
}
