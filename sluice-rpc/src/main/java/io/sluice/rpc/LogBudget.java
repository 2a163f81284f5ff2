package io.sluice.rpc;

/**
 * A bound on how many messages a log site writes per window: the first {@code perWindow} of each
 * window are written, the rest counted, and the next one written says how many were left out. A
 * peer that makes every call fail cannot turn a server's log into a flood of stack traces.
 *
 * <p>Thread-safe (a lock held for a few field updates, on failure paths only).
 */
final class LogBudget {
  /** What {@link #admit} returns for a message that is not to be written. */
  static final long SUPPRESSED = -1;

  private final int perWindow;
  private final long windowNanos;
  private long windowStart;
  private boolean started;
  private int written;
  private long suppressed;

  LogBudget(int perWindow, long windowNanos) {
    if (perWindow < 1 || windowNanos < 1) {
      throw new IllegalArgumentException("perWindow and windowNanos must be positive");
    }
    this.perWindow = perWindow;
    this.windowNanos = windowNanos;
  }

  /**
   * Whether a message at {@code nowNanos} ({@link System#nanoTime()}) is to be written: {@link
   * #SUPPRESSED} if not, otherwise how many were left out since the last one written (0 or more).
   */
  synchronized long admit(long nowNanos) {
    if (!started || nowNanos - windowStart >= windowNanos) {
      started = true;
      windowStart = nowNanos;
      written = 0;
    }
    if (written >= perWindow) {
      suppressed++;
      return SUPPRESSED;
    }
    written++;
    long left = suppressed;
    suppressed = 0;
    return left;
  }
}
