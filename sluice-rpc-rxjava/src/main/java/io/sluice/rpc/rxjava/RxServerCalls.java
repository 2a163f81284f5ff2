package io.sluice.rpc.rxjava;

import com.google.protobuf.MessageLite;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from RxJava functions; generated {@code
 * Rx*Server} classes use it. Each call subscribes once to what the handler returns, requests from a
 * {@link Flowable} only what the caller asked for, and disposes the subscription when the call is
 * cancelled (caller cancel, connection loss or deadline). {@link io.sluice.rpc.StatusException}s
 * keep their status; other errors are UNKNOWN.
 *
 * <p><b>Threads.</b> The handler function is invoked on the connection's event loop and must not
 * block; what it returns may signal on any thread.
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class RxServerCalls {
  private RxServerCalls() {}

  /** A unary method. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      Function<Req, Single<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(req -> RxRpc.invoke(() -> Mono.from(method.apply(req).toFlowable())));
  }

  /** A server-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(Function<Req, Flowable<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(
        req -> RxRpc.invoke(() -> Mono.just(method.apply(req))).flatMapMany(Flux::from));
  }

  /** A client-streaming method: the requests arrive as a single-subscriber {@link Flowable}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<Flowable<Req>, Single<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming(
        (Flux<Req> reqs) -> RxRpc.invoke(() -> Mono.from(method.apply(Flowable.fromPublisher(reqs)).toFlowable())));
  }

  /** A bidi-streaming method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<Flowable<Req>, Flowable<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming(
        (Flux<Req> reqs) ->
            RxRpc.invoke(() -> Mono.just(method.apply(Flowable.fromPublisher(reqs)))).flatMapMany(Flux::from));
  }

  /** A fire-and-forget method. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(Function<Req, Completable> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(
        req -> RxRpc.invoke(() -> Mono.from(method.apply(req).<Void>toFlowable())));
  }
}
