package io.sluice.balancer;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Reconnect delays: exponential in the consecutive failures, capped, with jitter (a random delay
 * between half and all of the step, so that clients that lost a server together do not come back
 * together). Immutable.
 */
final class Backoff {
  private final long initialNanos;
  private final long maxNanos;

  Backoff(Duration initial, Duration max) {
    this.initialNanos = initial.toNanos();
    this.maxNanos = max.toNanos();
    if (initialNanos <= 0 || maxNanos < initialNanos) {
      throw new IllegalArgumentException(
          "backoff must be positive with initial <= max: " + initial + ", " + max);
    }
  }

  /** The delay before the next attempt after {@code failures} consecutive failures (0: none). */
  long delayNanos(int failures) {
    if (failures <= 0) {
      return 0;
    }
    int shift = Math.min(failures - 1, 30);
    long step = initialNanos << shift;
    if (step <= 0 || step > maxNanos) {
      step = maxNanos;
    }
    long half = step / 2;
    return half + ThreadLocalRandom.current().nextLong(step - half + 1);
  }
}
