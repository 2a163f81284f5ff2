package io.sluice.rpc.mutiny;

import com.google.protobuf.MessageLite;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.util.Objects;
import java.util.function.Function;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from Mutiny functions; generated {@code
 * Mutiny*Server} classes use it. Each call subscribes once to what the handler returns, requests
 * from a {@link Multi} only what the caller asked for, and cancels it when the call is cancelled
 * (caller cancel, connection loss or deadline). {@link io.sluice.rpc.StatusException}s keep their
 * status; other failures are UNKNOWN.
 *
 * <p><b>Threads.</b> The handler function is invoked on the connection's event loop and must not
 * block; what it returns may signal on any thread.
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class MutinyServerCalls {
  private MutinyServerCalls() {}

  /** A unary method. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      Function<Req, Uni<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(
        req -> MutinyRpc.invoke(() -> Mono.from(JdkFlowAdapter.flowPublisherToFlux(method.apply(req).toMulti()))));
  }

  /** A server-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(Function<Req, Multi<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(
        req -> MutinyRpc.invoke(() -> Mono.just(method.apply(req))).flatMapMany(JdkFlowAdapter::flowPublisherToFlux));
  }

  /** A client-streaming method: the requests arrive as a single-subscriber {@link Multi}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<Multi<Req>, Uni<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming(
        (Flux<Req> reqs) ->
            MutinyRpc.invoke(
                () -> Mono.from(JdkFlowAdapter.flowPublisherToFlux(method.apply(multi(reqs)).toMulti()))));
  }

  /** A bidi-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<Multi<Req>, Multi<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming(
        (Flux<Req> reqs) ->
            MutinyRpc.invoke(() -> Mono.just(method.apply(multi(reqs)))).flatMapMany(JdkFlowAdapter::flowPublisherToFlux));
  }

  /** A fire-and-forget method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(Function<Req, Uni<Void>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(
        req -> MutinyRpc.invoke(() -> Mono.from(JdkFlowAdapter.flowPublisherToFlux(method.apply(req).toMulti())).then()));
  }

  private static <T> Multi<T> multi(Flux<T> flux) {
    return Multi.createFrom().publisher(JdkFlowAdapter.publisherToFlowPublisher(flux));
  }
}
