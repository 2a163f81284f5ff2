package io.sluice.internal;

import io.netty.util.concurrent.Ticker;

/**
 * A per-second frame budget for one kind of inbound frame on one connection. {@link #take()} is one
 * increment and one compare on the per-frame path; the clock is read only once every {@code limit}
 * frames, when the count runs out: if a second has passed since the window opened, a new window
 * opens, otherwise the peer is over budget. So a peer is cut off once it sends more than {@code
 * limit} frames within one second, and never at less than {@code limit} per second (bursts of up
 * to twice the limit across a window boundary pass). Confined to the connection's event loop.
 */
final class RateBudget {
  private static final long WINDOW_NANOS = 1_000_000_000L;

  private final int limit;
  private final Ticker ticker;
  private int count;
  private long windowStart;

  RateBudget(int limitPerSecond, Ticker ticker) {
    this.limit = limitPerSecond;
    this.ticker = ticker;
    this.windowStart = ticker.nanoTime();
  }

  /** Counts one frame; false when the peer is over budget. */
  boolean take() {
    if (++count <= limit) {
      return true;
    }
    long now = ticker.nanoTime();
    if (now - windowStart >= WINDOW_NANOS) {
      windowStart = now;
      count = 1;
      return true;
    }
    return false;
  }

  int limit() {
    return limit;
  }
}
