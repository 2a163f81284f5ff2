package io.sluice.rpc.reactor;

import io.sluice.rpc.CallMetadata;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The call whose handler method is running on this thread, for the RPC flavors whose handlers see
 * no reactor {@code Context} (futures, gRPC StreamObserver, rxjava, mutiny, blocking). Each flavor
 * exposes it as its own {@code <Flavor>Rpc.callMetadata()}; generated servers set it around the
 * handler method's invocation only.
 *
 * <p><b>Threads.</b> The current call is a thread-local: set only on the thread that invokes the
 * handler method, for the duration of that invocation. Holds no buffers.
 */
public final class HandlerCalls {
  private static final ThreadLocal<CallMetadata> CURRENT = new ThreadLocal<>();

  private HandlerCalls() {}

  /**
   * The metadata (service, method, headers, deadline) of the call whose handler method is running
   * on this thread. Valid only while the generated server invokes the handler method; capture it
   * there for asynchronous work.
   *
   * @throws IllegalStateException outside a handler invocation
   */
  public static CallMetadata current() {
    CallMetadata md = CURRENT.get();
    if (md == null) {
      throw new IllegalStateException("no RPC call on this thread: call it from a handler method");
    }
    return md;
  }

  /** Runs {@code body} with the call of {@code context} as the current call of this thread. */
  public static <T> T withCall(ContextView context, Supplier<T> body) {
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

  /** A Mono that invokes the handler, with its call as the current call, on subscription. */
  public static <T> Mono<T> invoke(Supplier<Mono<T>> body) {
    return Mono.deferContextual(ctx -> withCall(ctx, body));
  }
}
