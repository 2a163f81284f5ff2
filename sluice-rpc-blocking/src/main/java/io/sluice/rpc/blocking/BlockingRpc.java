package io.sluice.rpc.blocking;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.reactor.HandlerCalls;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Server-side access to the current call for handlers of the blocking flavor.
 *
 * <pre>
 * public HelloReply sayHello(HelloRequest request) {
 *   String client = BlockingRpc.callMetadata().headers().get("client-id"); //
 *   ...
 * }
 * </pre>
 *
 * <p><b>Threads.</b> {@link #callMetadata()} reads a thread-local that the generated server sets
 * only while it invokes the handler method, on the thread that invokes it (the call's virtual
 * thread); anywhere else it throws. Holds no buffers.
 */
public final class BlockingRpc {
  private BlockingRpc() {}

  /**
   * The metadata (service, method, headers, deadline) of the call whose handler method is running
   * on this thread. Valid only while the generated server invokes the handler method; capture it
   * there for asynchronous work.
   *
   * @throws IllegalStateException outside a handler invocation
   */
  public static CallMetadata callMetadata() {
    return HandlerCalls.current();
  }

  static <T> T withCall(ContextView context, Supplier<T> body) {
    return HandlerCalls.withCall(context, body);
  }

  static <T> Mono<T> invoke(Supplier<Mono<T>> body) {
    return HandlerCalls.invoke(body);
  }
}
