package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.UnaryCallHandler;
import java.util.Objects;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from project-reactor functions; generated
 * {@code Reactor*Server} classes use it. Each call subscribes once to what the function returns,
 * requests responses as the caller grants demand, and cancels that subscription when the call is
 * cancelled (caller cancel, connection loss, or deadline).
 *
 * <p><b>Threads.</b> The handler function is invoked on the connection's event loop (when the call
 * starts, or when its request arrives) and must not block; the publisher it returns may signal on
 * any thread.
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class ReactorServerCalls {
  private ReactorServerCalls() {}

  /** A unary method: one request, one response (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      Function<Req, Mono<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return new Unary<>(method::apply);
  }

  /**
   * A unary method's handler, which also takes a request already in hand ({@link
   * UnaryCallHandler}): over RSocket a call answered with a scalar Mono ({@code Mono.just},
   * {@code Mono.error}, ...) then needs no object besides the transport's own call.
   */
  private static final class Unary<Req extends MessageLite, Resp extends MessageLite>
      implements UnaryCallHandler<Req, Resp> {
    private final Function<Req, ? extends Publisher<Resp>> method;

    Unary(Function<Req, ? extends Publisher<Resp>> method) {
      this.method = method;
    }

    @Override
    public ServerCall.Listener<Req> startCall(ServerCall<Req, Resp> call) {
      return new ServerCallBridge<>(call, MethodKind.UNARY, method, null);
    }

    @Override
    public ServerCall.Listener<Req> startUnary(ServerCall<Req, Resp> call, Req request) {
      return ServerCallBridge.startUnary(call, method, request);
    }
  }

  /** A server-streaming method: one request, a stream of responses (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(Function<Req, Flux<Resp>> method) {
    Objects.requireNonNull(method, "method");
    Function<Req, ? extends Publisher<Resp>> f = method::apply;
    return call -> new ServerCallBridge<>(call, MethodKind.SERVER_STREAMING, f, null);
  }

  /** A client-streaming method: a stream of requests, one response (request-channel). */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<Flux<Req>, Mono<Resp>> method) {
    Objects.requireNonNull(method, "method");
    Function<Flux<Req>, ? extends Publisher<Resp>> f = method::apply;
    return call -> new ServerCallBridge<>(call, MethodKind.CLIENT_STREAMING, null, f);
  }

  /** A bidi-streaming method: streams both ways (request-channel). */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<Flux<Req>, Flux<Resp>> method) {
    Objects.requireNonNull(method, "method");
    Function<Flux<Req>, ? extends Publisher<Resp>> f = method::apply;
    return call -> new ServerCallBridge<>(call, MethodKind.BIDI_STREAMING, null, f);
  }

  /** A fire-and-forget method: one request, no response (fire-and-forget). */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(Function<Req, Mono<Void>> method) {
    Objects.requireNonNull(method, "method");
    Function<Req, ? extends Publisher<Resp>> f = r -> method.apply(r).then(Mono.<Resp>empty());
    return call -> new ServerCallBridge<Req, Resp>(call, MethodKind.FIRE_AND_FORGET, f, null);
  }
}
