package io.sluice.transport.grpc.internal;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.HandlerFailures;
import io.sluice.rpc.Status;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the gRPC server's calls share, whatever the protocol (gRPC on an HTTP/2 stream, {@code
 * GrpcServerCall}; gRPC-Web and HTTP/JSON, {@code web.WebCall}): the {@link ServerCall} plumbing
 * (metadata, method, the handler's {@link #request demand} hopping to the loop, the close made
 * once), starting the handler, the deadline, counting responses against the method's kind and the
 * {@link ResponseAllowance}, the end status and its report to the instrumentation, and the
 * cancellation of the handler when the call fails or the caller goes away. How requests arrive and
 * how responses are written is the subclass's.
 *
 * <p>Public only because the gRPC-Web call lives in a package of its own; internal, not an API.
 *
 * <p><b>Threads.</b> The call's state lives on its event loop ({@link #loop}); {@link #request}
 * hops there from other threads. {@link #ended} is the one atomic flag that ends the call once:
 * the handler's close, the caller going away, the deadline or an error, whichever comes first.
 *
 * @param <Req> the request message type
 * @param <Resp> the response message type
 */
public abstract class AbstractServerCall<Req extends MessageLite, Resp extends MessageLite>
    implements ServerCall<Req, Resp> {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(AbstractServerCall.class);

  /** The event loop the call's state lives on. */
  protected final EventExecutor loop;
  /** The method called. */
  protected final ServerMethodDefinition<Req, Resp> def;
  /** Set once, by whatever ends the call first. */
  protected final AtomicBoolean ended = new AtomicBoolean();
  /** How many responses the handler may send. Event loop only. */
  protected final ResponseAllowance allowance;
  private final CallMetadata metadata;
  private final long timeoutNanos;
  private final RpcInstrumentation.CallObserver observer;
  private final long startNanos;

  // Event-loop state.
  /** The handler's listener, once it started; null before. */
  protected Listener<Req> listener;
  /** Requests the handler asked for and has not been given yet; {@link Long#MAX_VALUE}: no limit. */
  protected long demand;
  private int sent;
  private boolean grantScheduled;
  private ScheduledFuture<?> deadlineTimer;

  /**
   * A call not started yet.
   *
   * @param loop the event loop of the call's connection
   * @param def the method called
   * @param metadata the call's metadata
   * @param timeoutNanos the call's deadline from now, or negative for none (see {@link
   *     #startDeadline})
   * @param observer the instrumentation's observer of this call (may be a no-op)
   * @param startNanos when the call started, for the observer
   * @param connection the responses queued by the calls of the call's connection
   */
  @SuppressWarnings("unchecked")
  protected AbstractServerCall(
      EventExecutor loop,
      ServerMethodDefinition<?, ?> def,
      CallMetadata metadata,
      long timeoutNanos,
      RpcInstrumentation.CallObserver observer,
      long startNanos,
      ResponseAllowance.Connection connection) {
    this.loop = loop;
    this.def = (ServerMethodDefinition<Req, Resp>) def;
    this.metadata = metadata;
    this.timeoutNanos = timeoutNanos;
    this.observer = observer;
    this.startNanos = startNanos;
    this.allowance = new ResponseAllowance(this.def.method().kind().serverStreams(), connection);
  }

  // ---- for the subclass, on the event loop ------------------------------------------------------

  /** Starts the deadline's timer, if the call has one; it {@link #fail fails} the call. */
  protected final void startDeadline() {
    if (timeoutNanos >= 0) {
      deadlineTimer = loop.schedule(this::deadlinePassed, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void deadlinePassed() {
    deadlineTimer = null;
    fail(Status.of(Status.Code.DEADLINE_EXCEEDED, "deadline of " + timeoutNanos + " ns exceeded on the server"));
  }

  /**
   * Starts the method's handler and keeps its {@link #listener}. A handler that throws or returns
   * no listener closes the call.
   *
   * @return whether the call goes on (false: it has ended)
   */
  protected final boolean startHandler() {
    Listener<Req> l;
    try {
      l = def.handler().startCall(this);
    } catch (RuntimeException e) {
      close(HandlerFailures.status(def.method(), e));
      return false;
    }
    if (l == null) {
      close(Status.of(Status.Code.INTERNAL, "handler of " + def.method().fullName() + " returned no listener"));
      return false;
    }
    listener = l;
    return !ended.get();
  }

  /**
   * Counts a response about to be written: a method without streamed responses that sends a
   * second one is closed INTERNAL ({@code out} released); the first is reported to the observer.
   *
   * @return whether to write it
   */
  protected final boolean countResponse(ByteBuf out) {
    if (!countResponse(out.readableBytes())) {
      out.release();
      return false;
    }
    return true;
  }

  /** {@link #countResponse(ByteBuf)} of a framed response of {@code framedBytes} not in a buffer yet. */
  protected final boolean countResponse(int framedBytes) {
    if (++sent > 1 && !def.method().kind().serverStreams()) {
      close(Status.of(Status.Code.INTERNAL, def.method().fullName() + " sent more than one response"));
      return false;
    }
    if (sent == 1) {
      CallObservation.firstResponse(observer, startNanos);
    }
    // The message without its 5-byte gRPC prefix (gRFC A66's compressed message size).
    CallObservation.messageSent(observer, Math.max(0, framedBytes - 5));
    return true;
  }

  /** A request message of {@code bytes} bytes arrived, for the observer. */
  protected final void received(int bytes) {
    CallObservation.messageReceived(observer, bytes);
  }

  /**
   * Takes a response's bytes out of the {@link #allowance}: beyond it the call fails
   * RESOURCE_EXHAUSTED ({@code out} released).
   *
   * @return the bytes taken, to hand to {@link #written} once their write completed; -1 if refused
   */
  protected final int take(ByteBuf out) {
    int bytes = out.readableBytes();
    if (!take(bytes)) {
      out.release();
      return -1;
    }
    return bytes;
  }

  /** {@link #take(ByteBuf)} of {@code bytes} not in a buffer yet: false (the call failed) if refused. */
  protected final boolean take(int bytes) {
    if (!allowance.take(bytes)) {
      fail(Status.of(Status.Code.RESOURCE_EXHAUSTED, ResponseAllowance.overflowMessage()));
      return false;
    }
    return true;
  }

  /**
   * A response's write completed: allows the handler more responses, later (never from inside a
   * send: no recursion into the handler).
   */
  protected final void written(int bytes) {
    allowance.written(bytes);
    if (!grantScheduled && !ended.get() && def.method().kind().serverStreams()) {
      grantScheduled = true;
      loop.execute(this::grant);
    }
  }

  private void grant() {
    grantScheduled = false;
    if (ended.get() || listener == null) {
      return;
    }
    long more = allowance.more();
    if (more > 0) {
      try {
        listener.onReady(more);
      } catch (RuntimeException e) {
        fail(Status.fromThrowable(e));
      }
    }
  }

  /**
   * Tells the handler's listener the call was cancelled. What it throws is logged, not thrown: the
   * call is over, and the exception would otherwise reach the connection's frame reader and close
   * the connection with every other call on it.
   */
  private void cancelListener() {
    if (listener == null) {
      return;
    }
    try {
      listener.onCancel();
    } catch (RuntimeException e) {
      logger.warn("the listener of {} threw from onCancel", def.method().fullName(), e);
    }
  }

  /**
   * The status the call ends with: {@code status}, except that an OK close of a method owing one
   * response that sent none is INTERNAL.
   */
  protected final Status endStatus(Status status) {
    if (status.isOk() && sent == 0 && !def.method().kind().serverStreams()) {
      return Status.of(Status.Code.INTERNAL, def.method().fullName() + " completed without a response");
    }
    return status;
  }

  /** The call is over with {@code end}: stops the deadline, {@link #cleanUp}, tells the observer. */
  protected final void wrapUp(Status end) {
    ScheduledFuture<?> t = deadlineTimer;
    if (t != null) {
      deadlineTimer = null;
      t.cancel(false);
    }
    cleanUp();
    CallObservation.end(observer, end, startNanos);
  }

  /**
   * The caller went away (reset, closed) before the call ended: ends it with {@code status}, writes
   * nothing more ({@link #cleanUp}) and cancels the handler. Nothing if the call had ended.
   */
  protected final void peerGone(Status status) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    wrapUp(status);
    cancelListener();
  }

  /**
   * A transport-side error (bad input, over a limit, the deadline) or a listener callback that
   * threw: the call ends, the handler is cancelled.
   */
  protected final void fail(Status status) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    finish(status, Headers.EMPTY);
    cancelListener();
  }

  // ---- what the subclass does -------------------------------------------------------------------

  /** The handler's demand grew ({@link #demand}): hand it what it asked for. On the loop. */
  protected abstract void demanded();

  /**
   * Runs {@link #finish} on the loop after the headers and responses the handler sent before its
   * close. Any thread; the call has just {@link #ended}.
   */
  protected abstract void finishInOrder(Status status, Headers trailers);

  /**
   * Ends the response with {@code status} (after the responses already written) and {@link
   * #wrapUp}s the call. On the loop, once {@link #ended} is set.
   */
  protected abstract void finish(Status status, Headers trailers);

  /**
   * The call is over: write nothing more, and release what the call holds. On the loop; may run
   * more than once.
   */
  protected abstract void cleanUp();

  // ---- ServerCall -------------------------------------------------------------------------------

  @Override
  public final CallMetadata metadata() {
    return metadata;
  }

  @Override
  public final MethodDescriptor<Req, Resp> method() {
    return def.method();
  }

  @Override
  public final boolean isClosed() {
    return ended.get();
  }

  @Override
  public final void request(long n) {
    if (n <= 0) {
      close(Status.of(Status.Code.INTERNAL, "request(" + n + "): must be positive"));
      return;
    }
    if (!loop.inEventLoop()) {
      loop.execute(() -> request(n));
      return;
    }
    long d = demand + n;
    demand = d < 0 ? Long.MAX_VALUE : d;
    demanded();
  }

  @Override
  public final void close(Status status) {
    close(status, Headers.EMPTY);
  }

  @Override
  public final void close(Status status, Headers trailers) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    finishInOrder(status, trailers);
  }
}
