package io.sluice.rpc.futures;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Function;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from futures-flavor functions; generated {@code
 * Futures*Server} classes use it. When the call is cancelled (caller cancel, connection loss or
 * deadline), a returned future is cancelled and a returned publisher's subscription is cancelled.
 * A handler that throws, returns null or fails its future ends the call with the matching status
 * ({@link io.sluice.rpc.StatusException} keeps its status, anything else is UNKNOWN).
 *
 * <p><b>Threads.</b> The handler function is invoked on the connection's event loop and must not
 * block; the future it returns may complete, and its publisher signal, on any thread.
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class FuturesServerCalls {
  private FuturesServerCalls() {}

  /** A unary method. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      Function<Req, CompletableFuture<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(req -> FuturesRpc.invoke(() -> Mono.fromFuture(method.apply(req))));
  }

  /** A server-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(Function<Req, Flow.Publisher<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(
        req -> FuturesRpc.invoke(() -> Mono.just(method.apply(req))).flatMapMany(JdkFlowAdapter::flowPublisherToFlux));
  }

  /** A client-streaming method: the handler gets the requests as a single-subscriber publisher. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<Flow.Publisher<Req>, CompletableFuture<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming(
        (Flux<Req> reqs) ->
            FuturesRpc.invoke(() -> Mono.fromFuture(method.apply(JdkFlowAdapter.publisherToFlowPublisher(reqs)))));
  }

  /** A bidi-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<Flow.Publisher<Req>, Flow.Publisher<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming(
        (Flux<Req> reqs) ->
            FuturesRpc.invoke(() -> Mono.just(method.apply(JdkFlowAdapter.publisherToFlowPublisher(reqs))))
                .flatMapMany(JdkFlowAdapter::flowPublisherToFlux));
  }

  /** A fire-and-forget method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(Function<Req, CompletableFuture<Void>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(req -> FuturesRpc.invoke(() -> Mono.fromFuture(method.apply(req))));
  }
}
