package io.sluice.rpc.blocking;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from blocking methods; generated {@code
 * Blocking*Server} classes use it. Each call's handler runs on its own virtual thread, so it may
 * block freely. A returned {@link Stream} is pulled only as the caller grants demand and is closed
 * at the end; a request {@link Stream} blocks until the next request arrives. When the call is
 * cancelled (caller cancel, connection loss or deadline), the handler's thread is interrupted.
 * {@link io.sluice.rpc.StatusException}s keep their status; other exceptions are UNKNOWN.
 *
 * <p><b>Threads.</b> Each handler method runs on a virtual thread of this flavor, never on the
 * event loop; a returned {@link Stream} is also pulled on such threads.
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class BlockingServerCalls {
  private BlockingServerCalls() {}

  /** A unary method: {@code Resp m(Req)}. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      Function<Req, Resp> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(
        req -> Mono.deferContextual(ctx -> Mono.fromCallable(() -> BlockingRpc.withCall(ctx, () -> method.apply(req))))
            .subscribeOn(VirtualThreads.SCHEDULER));
  }

  /** A server-streaming method: {@code Stream<Resp> m(Req)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(Function<Req, Stream<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(
        req -> Flux.deferContextual(ctx -> Flux.fromStream(BlockingRpc.withCall(ctx, () -> method.apply(req))))
            .subscribeOn(VirtualThreads.SCHEDULER));
  }

  /** A client-streaming method: {@code Resp m(Stream<Req>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<Stream<Req>, Resp> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming(
        (Flux<Req> reqs) ->
            Mono.deferContextual(
                    ctx -> Mono.fromCallable(() -> BlockingRpc.withCall(ctx, () -> method.apply(reqs.toStream()))))
                .subscribeOn(VirtualThreads.SCHEDULER));
  }

  /** A bidi-streaming method: {@code Stream<Resp> m(Stream<Req>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<Stream<Req>, Stream<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming(
        (Flux<Req> reqs) ->
            Flux.deferContextual(
                    ctx -> Flux.fromStream(BlockingRpc.withCall(ctx, () -> method.apply(reqs.toStream()))))
                .subscribeOn(VirtualThreads.SCHEDULER));
  }

  /** A fire-and-forget method: {@code void m(Req)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(Consumer<Req> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(
        req -> Mono.deferContextual(
                ctx -> Mono.<Void>fromRunnable(() -> BlockingRpc.withCall(ctx, () -> {
                  method.accept(req);
                  return null;
                })))
            .subscribeOn(VirtualThreads.SCHEDULER));
  }
}
