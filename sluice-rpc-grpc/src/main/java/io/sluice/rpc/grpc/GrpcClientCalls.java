package io.sluice.rpc.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.stub.StreamObserver;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.util.Objects;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Sinks;

/**
 * Client side of the gRPC StreamObserver flavor; generated {@code Grpc*Client} stubs delegate here,
 * with grpc-java's async-stub shapes: single-request methods take the request and a response
 * observer, streaming-request methods return the observer the caller writes requests to. Every
 * method call is a new call; a failed call ends with {@code onError(StatusRuntimeException)}
 * carrying the status code (the Sluice {@link io.sluice.rpc.StatusException} is its cause).
 * Responses are delivered as they arrive (no flow control towards the observer, as in grpc-java's
 * default); a request observer buffers what is written before the connection takes it.
 */
public final class GrpcClientCalls {
  private GrpcClientCalls() {}

  private static <T> void subscribe(Publisher<T> p, StreamObserver<? super T> responses) {
    Objects.requireNonNull(responses, "responses");
    reactor.core.publisher.Flux.from(p)
        .subscribe(responses::onNext, e -> responses.onError(GrpcStatuses.toGrpc(e)), responses::onCompleted);
  }

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> void unary(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    subscribe(ReactorClientCalls.unary(requester, method, options, request), responses);
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> void serverStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      StreamObserver<Resp> responses) {
    subscribe(ReactorClientCalls.serverStreaming(requester, method, options, request), responses);
  }

  /** A client-streaming call (request-channel): write at least one request, then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> clientStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    subscribe(ReactorClientCalls.clientStreaming(requester, method, options, requests.sink.asFlux()), responses);
    return requests;
  }

  /** A bidi-streaming call (request-channel): write at least one request, then {@code onCompleted}. */
  public static <Req extends MessageLite, Resp extends MessageLite> StreamObserver<Req> bidiStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      StreamObserver<Resp> responses) {
    RequestObserver<Req> requests = new RequestObserver<>();
    subscribe(ReactorClientCalls.bidiStreaming(requester, method, options, requests.sink.asFlux()), responses);
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
    Objects.requireNonNull(responses, "responses");
    ReactorClientCalls.fireAndForget(requester, method, options, request)
        .subscribe(null, e -> responses.onError(GrpcStatuses.toGrpc(e)), responses::onCompleted);
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
}
