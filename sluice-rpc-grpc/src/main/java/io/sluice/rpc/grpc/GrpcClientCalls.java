package io.sluice.rpc.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
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
 * Responses are delivered as they arrive (no flow control towards the observer, as in grpc-java's
 * default); a request observer buffers what is written before the connection takes it. A response
 * observer that is a {@link ClientResponseObserver} gets a {@link ClientCallStreamObserver} in
 * {@code beforeStart}; its {@code cancel(message, cause)} cancels the call (the server handler is
 * cancelled) and ends the observer with CANCELLED.
 */
public final class GrpcClientCalls {
  private GrpcClientCalls() {}

  /**
   * Starts the call: gives a {@link ClientResponseObserver} its {@link ClientCallStreamObserver}
   * (whose {@code cancel} cancels the call) first, as grpc-java does, then subscribes.
   */
  @SuppressWarnings("unchecked")
  private static <Req, T> void start(
      Publisher<T> p, StreamObserver<? super T> responses, RequestObserver<Req> requests) {
    Objects.requireNonNull(responses, "responses");
    Responses<T> call = new Responses<>(responses);
    if (responses instanceof ClientResponseObserver) {
      ((ClientResponseObserver<Req, T>) responses).beforeStart(new Control<>(call, requests));
    }
    Flux.from(p).subscribe(call);
  }

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> void unary(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    start(ReactorClientCalls.unary(requester, method, options, request), responses, null);
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> void serverStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    start(ReactorClientCalls.serverStreaming(requester, method, options, request), responses, null);
  }

  /** A client-streaming call (request-channel): write at least one request, then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> clientStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    start(ReactorClientCalls.clientStreaming(requester, method, options, requests.sink.asFlux()), responses, requests);
    return requests;
  }

  /** A bidi-streaming call (request-channel): write at least one request, then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> bidiStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    start(ReactorClientCalls.bidiStreaming(requester, method, options, requests.sink.asFlux()), responses, requests);
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
    start(ReactorClientCalls.fireAndForget(requester, method, options, request).<Resp>then(Mono.empty()), responses, null);
  }

  /** The caller's side of a request stream; like any StreamObserver, not for concurrent use. */
  private static final class RequestObserver<Req> implements StreamObserver<Req> {
    final Sinks.Many<Req> sink = Sinks.many().unicast().onBackpressureBuffer();

    @Override
    public void onNext(Req value) {
      sink.emitNext(Objects.requireNonNull(value, "value"), Sinks.EmitFailureHandler.FAIL_FAST);
    }

    @Override
    public void onError(Throwable t) {
      sink.tryEmitError(GrpcStatuses.toSluice(t));
    }

    @Override
    public void onCompleted() {
      sink.tryEmitComplete();
    }
  }

  /** Delivers the call's signals to the caller's observer, at most one terminal signal. */
  private static final class Responses<T> extends BaseSubscriber<T> {
    private final StreamObserver<? super T> observer;
    private final AtomicBoolean done = new AtomicBoolean();

    Responses(StreamObserver<? super T> observer) {
      this.observer = observer;
    }

    @Override
    protected void hookOnNext(T value) {
      if (!done.get()) {
        observer.onNext(value);
      }
    }

    @Override
    protected void hookOnError(Throwable t) {
      if (done.compareAndSet(false, true)) {
        observer.onError(GrpcStatuses.toGrpc(t));
      }
    }

    @Override
    protected void hookOnComplete() {
      if (done.compareAndSet(false, true)) {
        observer.onCompleted();
      }
    }

    void cancelCall(String message, Throwable cause) {
      dispose();
      if (done.compareAndSet(false, true)) {
        observer.onError(
            io.grpc.Status.CANCELLED
                .withDescription(message == null ? "cancelled by the client" : message)
                .withCause(cause)
                .asRuntimeException());
      }
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
      return !call.isDisposed();
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int count) {}

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
