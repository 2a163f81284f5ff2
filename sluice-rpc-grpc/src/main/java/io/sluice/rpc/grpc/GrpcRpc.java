package io.sluice.rpc.grpc;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.reactor.ReactorRpc;
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
 */
public final class GrpcRpc {
  private static final ThreadLocal<CallMetadata> CURRENT = new ThreadLocal<>();

  private GrpcRpc() {}

  /**
   * The metadata (service, method, headers, deadline) of the call whose handler method is running
   * on this thread. Valid only while the generated server invokes the handler method; capture it
   * there for asynchronous work.
   *
   * @throws IllegalStateException outside a handler invocation
   */
  public static CallMetadata callMetadata() {
    CallMetadata md = CURRENT.get();
    if (md == null) {
      throw new IllegalStateException("no RPC call on this thread: call it from a handler method");
    }
    return md;
  }

  /** Runs {@code body} with the call of {@code context} as the current call. */
  static <T> T withCall(ContextView context, Supplier<T> body) {
    CallMetadata previous = CURRENT.get();
    CURRENT.set(ReactorRpc.callMetadata(context));
    try {
      return body.get();
    } finally {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }

  /** A Mono that invokes the handler with the current call set, on subscription. */
  static <T> Mono<T> invoke(Supplier<Mono<T>> body) {
    return Mono.deferContextual(ctx -> withCall(ctx, body));
  }
}
