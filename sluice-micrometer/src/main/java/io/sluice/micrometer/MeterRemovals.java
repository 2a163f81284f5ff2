package io.sluice.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the meters a registry removed ({@code onMeterRemoved}), so that meters kept by the RPC
 * meters ({@link RpcMeters}) are resolved again after a removal instead of recording into a meter
 * the registry no longer holds. One per {@link SluiceMetrics}; the registry's listener holds only
 * this counter. Thread-safe.
 */
final class MeterRemovals {
  private final AtomicInteger generation = new AtomicInteger();

  /** Listens to {@code registry}'s removals. */
  static MeterRemovals of(MeterRegistry registry) {
    MeterRemovals removals = new MeterRemovals();
    AtomicInteger generation = removals.generation;
    registry.config().onMeterRemoved(m -> generation.incrementAndGet());
    return removals;
  }

  /** Changes whenever the registry removed a meter. */
  int generation() {
    return generation.get();
  }
}
