package io.sluice.rpc.grpcstub;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.reactor.HandlerCalls;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Server-side access to the current call for handlers of the gRPC StreamObserver flavor.
 *
 * <pre>
 * public void sayHello(HelloRequest request, StreamObserver&lt;HelloReply&gt; responses) {
 *   String client = GrpcRpc.callMetadata().headers().get("client-id"); // before any async hop
 *   ...
 * }
 * </pre>
 *
 * <p><b>Threads.</b> {@link #callMetadata()} reads a thread-local that the generated server sets
 * only while it invokes the handler method, on the thread that invokes it (the connection's event
 * loop); anywhere else it throws. Holds no buffers.
 */
public final class GrpcRpc {
  private GrpcRpc() {}

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
