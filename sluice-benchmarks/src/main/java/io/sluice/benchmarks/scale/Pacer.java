package io.sluice.benchmarks.scale;

/**
 * How many sends are due at each tick of one timer that serves many streams, each sending {@code
 * rate} messages per second: the streams are visited round-robin, so each one sends every {@code
 * 1/rate} seconds, evenly spread, whatever the tick period. A backlog (a late tick) is capped at
 * one second's worth, so a stalled sender catches up at most one round. Not thread-safe: one
 * instance per event loop.
 */
final class Pacer {
  private final double ratePerStream;
  private double budget;
  private long last;

  Pacer(double ratePerStream, long nowNanos) {
    if (!(ratePerStream > 0)) {
      throw new IllegalArgumentException("rate must be > 0, got " + ratePerStream);
    }
    this.ratePerStream = ratePerStream;
    this.last = nowNanos;
  }

  /** The sends due at {@code nowNanos} over {@code streams} streams since the last call. */
  int due(long nowNanos, int streams) {
    long elapsed = Math.max(0, nowNanos - last);
    last = nowNanos;
    double perSecond = ratePerStream * streams;
    budget = Math.min(budget + elapsed * 1e-9 * perSecond, Math.max(1.0, perSecond));
    int n = (int) Math.min(Integer.MAX_VALUE, budget);
    budget -= n;
    return n;
  }
}
