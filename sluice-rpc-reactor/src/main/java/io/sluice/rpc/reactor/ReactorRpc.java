package io.sluice.rpc.reactor;

import io.sluice.rpc.CallMetadata;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Access to the current call from inside a reactor handler. The server puts the call's {@link
 * CallMetadata} (service, method, headers, deadline, ...) into the Reactor {@link Context} of the
 * publisher the handler returns.
 *
 * <pre>{@code
 * public Mono<HelloReply> sayHello(HelloRequest request) {
 *   return ReactorRpc.callMetadata()
 *       .map(call -> HelloReply.newBuilder()
 *           .setText("hello " + request.getName() + " from " + call.headers().get("client-id"))
 *           .build());
 * }
 * }</pre>
 *
 * <p><b>Threads.</b> It reads the Reactor {@link Context}, not the current thread, so it works on
 * any thread the handler's publisher runs on. Holds no buffers.
 */
public final class ReactorRpc {
  /** The Context key under which the call's {@link CallMetadata} is stored. */
  public static final Class<CallMetadata> CALL_METADATA = CallMetadata.class;

  private ReactorRpc() {}

  /** The current call's metadata; fails when subscribed outside a Sluice server call. */
  public static Mono<CallMetadata> callMetadata() {
    return Mono.deferContextual(
        ctx ->
            ctx.hasKey(CALL_METADATA)
                ? Mono.just(ctx.get(CALL_METADATA))
                : Mono.error(new IllegalStateException("not inside a Sluice RPC server call")));
  }

  /** The call metadata in {@code context}, or null. */
  public static CallMetadata callMetadata(ContextView context) {
    return context.getOrDefault(CALL_METADATA, null);
  }
}
