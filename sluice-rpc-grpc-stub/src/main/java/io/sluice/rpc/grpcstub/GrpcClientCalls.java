package io.sluice.rpc.grpcstub;

import com.google.protobuf.MessageLite;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ResponseMetadataListener;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.util.Objects;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Client side of the gRPC StreamObserver flavor; generated {@code Grpc*Client} stubs delegate here,
 * with grpc-java's async-stub shapes: single-request methods take the request and a response
 * observer, streaming-request methods return the observer the caller writes requests to. Every
 * method call is a new call; a failed call ends with {@code onError(StatusRuntimeException)}
 * carrying the status code (the Sluice {@link io.sluice.rpc.StatusException} is its cause).
 * Responses are delivered as they arrive (gRPC's automatic inbound flow control); a {@link
 * ClientResponseObserver} may disable it in {@code beforeStart} and pace them with {@code
 * request(n)}. A request observer queues what is written until the connection takes it, and is
 * ready ({@code isReady()}, on-ready handler) while few requests wait (see {@link
 * RequestObserver}); its {@code onError} cancels the call, as in grpc-java: the response observer
 * ends with CANCELLED and the server's handler is cancelled. A response
 * observer that is a {@link ClientResponseObserver} gets a {@link ClientCallStreamObserver} in
 * {@code beforeStart}; its {@code cancel(message, cause)} cancels the call (the server handler is
 * cancelled) and ends the observer with CANCELLED.
 *
 * <p><b>Threads.</b> The methods may be called from any thread; {@code beforeStart} runs on the
 * calling thread. Response observer callbacks run on the connection's event loop (a client-side
 * deadline error: on a Reactor timer thread) and must not block. A request observer is for one
 * writing thread at a time, as any StreamObserver; its on-ready handler runs first on the thread
 * that starts the call, later on the thread that takes queued requests, never on two threads at
 * once (a run asked for while it runs is made by the thread running it). A response observer's
 * callbacks never overlap either: a cancel from another thread while a response is delivered ends
 * the observer once that response's callback returns, and no response follows.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class GrpcClientCalls {
  private GrpcClientCalls() {}

  /**
   * Starts the call: gives a {@link ClientResponseObserver} its {@link ClientCallStreamObserver}
   * (whose {@code cancel} cancels the call) first, as grpc-java does, then subscribes.
   */
  @SuppressWarnings("unchecked")
  private static <Req, T> void start(
      CallOptions options,
      Function<CallOptions, Publisher<T>> p,
      StreamObserver<? super T> responses,
      RequestObserver<Req> requests) {
    Objects.requireNonNull(responses, "responses");
    // A caller that reads response metadata gets the trailers in a failed call's exception too
    // (grpc-java's StatusRuntimeException.getTrailers(): the rich error model).
    KeptTrailers kept =
        options.responseMetadata() == null ? null : new KeptTrailers(options.responseMetadata());
    Responses<T> call = new Responses<>(responses, kept);
    if (responses instanceof ClientResponseObserver) {
      ((ClientResponseObserver<Req, T>) responses).beforeStart(new Control<>(call, requests));
    }
    if (requests != null) {
      // As in grpc-java, the caller's onError on its request observer cancels the call.
      requests.cancelWith(t -> call.cancelCall("cancelled by the client with StreamObserver.onError()", t));
    }
    Flux.from(p.apply(kept == null ? options : options.withResponseMetadata(kept))).subscribe(call);
    if (requests != null) {
      requests.started(); // the call is ready for its first requests
    }
  }

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> void unary(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    start(options, o -> ReactorClientCalls.unary(requester, method, o, request), responses, null);
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> void serverStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    start(options, o -> ReactorClientCalls.serverStreaming(requester, method, o, request), responses, null);
  }

  /** A client-streaming call (request-channel): write requests (none is fine), then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> clientStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    start(options, o -> ReactorClientCalls.clientStreaming(requester, method, o, requests.flux()), responses, requests);
    return requests;
  }

  /** A bidi-streaming call (request-channel): write requests (none is fine), then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> bidiStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    start(options, o -> ReactorClientCalls.bidiStreaming(requester, method, o, requests.flux()), responses, requests);
    return requests;
  }

  /**
   * A fire-and-forget call: {@code responses.onCompleted()} once the request is handed to the
   * transport (no response message), {@code onError} if it could not be sent.
   */
  public static <Req extends MessageLite, Resp extends MessageLite> void fireAndForget(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    start(
        options,
        o -> ReactorClientCalls.fireAndForget(requester, method, o, request).<Resp>then(Mono.empty()),
        responses,
        null);
  }

  /**
   * The caller's side of a request stream; like any StreamObserver, not for concurrent use. Writes
   * are queued until the connection takes them; it is ready (gRPC's {@code isReady()}) while fewer
   * than {@link #READY_THRESHOLD} written requests wait, and its on-ready handler runs when the
   * call starts and whenever the queue drains below that again — so a caller that writes {@code
   * while (isReady())} from its on-ready handler keeps at most that many requests queued.
   */
  static final class RequestObserver<Req> implements StreamObserver<Req> {
    /** Requests that may wait to be taken by the connection before the call is not ready. */
    static final int READY_THRESHOLD = 32;

    final Sinks.Many<Req> sink = Sinks.many().unicast().onBackpressureBuffer();
    private final AtomicLong waiting = new AtomicLong();
    /** Runs of the on-ready handler asked for and not done yet: it runs on one thread at a time. */
    private final AtomicInteger readyWip = new AtomicInteger();
    private volatile Runnable onReady;
    private volatile boolean closed;
    private volatile java.util.function.Consumer<Throwable> cancel;

    Flux<Req> flux() {
      return sink.asFlux().doOnNext(v -> taken());
    }

    private void taken() {
      if (waiting.decrementAndGet() == READY_THRESHOLD - 1) {
        fireOnReady(); // was not ready, is again
      }
    }

    /** What {@link #onError} does besides ending the request stream: cancel the call. */
    void cancelWith(java.util.function.Consumer<Throwable> cancel) {
      this.cancel = cancel;
    }

    void started() {
      fireOnReady();
    }

    /**
     * Runs the on-ready handler, never on two threads at once (grpc-java serializes callbacks): a
     * thread that finds it running leaves one more run to the thread running it, which runs it
     * again when it returns (however many were asked for meanwhile), so no readiness is lost.
     */
    private void fireOnReady() {
      if (readyWip.getAndIncrement() != 0) {
        return;
      }
      int missed = 1;
      do {
        Runnable r = onReady;
        if (r != null && !closed) {
          r.run();
        }
        missed = readyWip.addAndGet(-missed);
      } while (missed != 0);
    }

    boolean isReady() {
      return !closed && waiting.get() < READY_THRESHOLD;
    }

    void setOnReadyHandler(Runnable r) {
      onReady = r;
    }

    @Override
    public void onNext(Req value) {
      Objects.requireNonNull(value, "value");
      if (ended) {
        throw new IllegalStateException("the request stream was already ended with onCompleted() or onError()");
      }
      waiting.incrementAndGet();
      Sinks.EmitResult r = sink.tryEmitNext(value);
      if (r.isFailure()) {
        waiting.decrementAndGet(); // not queued: it does not count as waiting
        if (r == Sinks.EmitResult.FAIL_NON_SERIALIZED) {
          throw new IllegalStateException("onNext from two threads at once: a StreamObserver is for one thread at a time");
        }
        // Otherwise the call is over (the server ended it, or it was cancelled): the request is
        // dropped, as grpc-java drops a message written to a call that has closed.
      }
    }

    /** The caller ended the request stream itself (onCompleted or onError). */
    private volatile boolean ended;

    @Override
    public void onError(Throwable t) {
      ended = true;
      closed = true;
      java.util.function.Consumer<Throwable> c = cancel;
      if (c != null) {
        c.accept(t); // the caller's observer ends with CANCELLED, the server sees a cancel
      }
      sink.tryEmitError(GrpcStatuses.toSluice(t));
    }

    @Override
    public void onCompleted() {
      ended = true;
      closed = true;
      sink.tryEmitComplete();
    }
  }

  /**
   * Delivers the call's signals to the caller's observer, at most one terminal signal. Responses
   * flow as they arrive (gRPC's automatic inbound flow control) unless the caller disabled it in
   * {@code beforeStart}; then only as many as it asks for with {@code request(n)}.
   */
  static final class Responses<T> extends BaseSubscriber<T> {
    private final StreamObserver<? super T> observer;
    /** The call's end was decided (one terminal signal: error, completion or cancel). */
    private final AtomicBoolean done = new AtomicBoolean();
    /**
     * Threads in or waiting for the observer. Responses come from the event loop one at a time; a
     * terminal signal may come from any thread (a cancel). Whoever finds it zero calls the
     * observer; a terminal signal that finds a response being delivered is delivered by that
     * thread once the response's callback returns, and no response is delivered after it.
     */
    private final AtomicInteger wip = new AtomicInteger();
    private volatile Runnable terminal;
    private final KeptTrailers trailers; // null: the caller reads no response metadata
    private boolean manual; // guarded by this
    private boolean subscribed; // guarded by this
    private long early; // guarded by this: request(n) before the subscription

    Responses(StreamObserver<? super T> observer) {
      this(observer, null);
    }

    Responses(StreamObserver<? super T> observer, KeptTrailers trailers) {
      this.observer = observer;
      this.trailers = trailers;
    }

    synchronized void disableAutoRequest(long initial) {
      manual = true;
      early += initial;
    }

    void requestMore(int n) {
      if (n <= 0) {
        throw new IllegalArgumentException("request(" + n + "): must be positive");
      }
      synchronized (this) {
        if (!subscribed) {
          early += n;
          return;
        }
      }
      request(n);
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      long n;
      boolean unbounded;
      synchronized (this) {
        subscribed = true;
        unbounded = !manual;
        n = early;
        early = 0;
      }
      if (unbounded) {
        s.request(Long.MAX_VALUE);
      } else if (n > 0) {
        s.request(n);
      }
    }

    @Override
    protected void hookOnNext(T value) {
      if (wip.get() == 0 && wip.compareAndSet(0, 1)) {
        observer.onNext(value);
        if (wip.decrementAndGet() != 0) {
          terminal.run(); // a terminal signal came while the response was delivered
        }
      }
      // else: the call's end is being delivered: a response after it is dropped
    }

    @Override
    protected void hookOnError(Throwable t) {
      end(() -> observer.onError(GrpcStatuses.toGrpc(t, trailers == null ? null : trailers.trailers)));
    }

    @Override
    protected void hookOnComplete() {
      end(observer::onCompleted);
    }

    void cancelCall(String message, Throwable cause) {
      dispose();
      end(
          () ->
              observer.onError(
                  io.grpc.Status.CANCELLED
                      .withDescription(message == null ? "cancelled by the client" : message)
                      .withCause(cause)
                      .asRuntimeException()));
    }

    /** Delivers {@code signal} as the call's one terminal signal, never during a response. */
    private void end(Runnable signal) {
      if (!done.compareAndSet(false, true)) {
        return;
      }
      terminal = signal;
      if (wip.getAndIncrement() == 0) {
        signal.run();
      }
    }
  }

  /** The caller's response metadata listener, keeping the trailers for a failed call's exception. */
  static final class KeptTrailers implements ResponseMetadataListener {
    private final ResponseMetadataListener delegate;
    volatile Headers trailers;

    KeptTrailers(ResponseMetadataListener delegate) {
      this.delegate = delegate;
    }

    @Override
    public void onHeaders(Headers headers) {
      delegate.onHeaders(headers);
    }

    @Override
    public void onTrailers(Headers trailers) {
      this.trailers = trailers; // before the call's error is delivered
      delegate.onTrailers(trailers);
    }
  }

  /** What {@code ClientResponseObserver.beforeStart} receives: cancel, and the request stream. */
  private static final class Control<Req> extends ClientCallStreamObserver<Req> {
    private final Responses<?> call;
    private final RequestObserver<Req> requests;

    Control(Responses<?> call, RequestObserver<Req> requests) {
      this.call = call;
      this.requests = requests;
    }

    @Override
    public void cancel(String message, Throwable cause) {
      call.cancelCall(message, cause);
    }

    @Override
    public boolean isReady() {
      return !call.isDisposed() && (requests == null || requests.isReady());
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {
      if (requests != null) {
        requests.setOnReadyHandler(onReadyHandler);
      }
    }

    @Override
    public void disableAutoInboundFlowControl() {
      call.disableAutoRequest(0);
    }

    @Override
    public void disableAutoRequestWithInitial(int request) {
      if (request < 0) {
        throw new IllegalArgumentException("initial request must not be negative: " + request);
      }
      call.disableAutoRequest(request);
    }

    @Override
    public void request(int count) {
      call.requestMore(count);
    }

    @Override
    public void setMessageCompression(boolean enable) {}

    private RequestObserver<Req> requests() {
      if (requests == null) {
        throw new IllegalStateException("a single-request call has no request stream");
      }
      return requests;
    }

    @Override
    public void onNext(Req value) {
      requests().onNext(value);
    }

    @Override
    public void onError(Throwable t) {
      requests().onError(t);
    }

    @Override
    public void onCompleted() {
      requests().onCompleted();
    }
  }
}
