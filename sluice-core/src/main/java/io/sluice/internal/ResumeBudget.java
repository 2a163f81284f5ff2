package io.sluice.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes all resumable sessions of one server may hold in their stores together. Sessions take
 * it in steps of {@link #STEP} bytes (not per frame), from any event loop.
 */
final class ResumeBudget {
  static final long STEP = 64 * 1024;

  private final long max;
  private final AtomicLong used = new AtomicLong();

  ResumeBudget(long max) {
    this.max = max;
  }

  boolean take(long n) {
    while (true) {
      long u = used.get();
      if (u + n > max) {
        return false;
      }
      if (used.compareAndSet(u, u + n)) {
        return true;
      }
    }
  }

  void giveBack(long n) {
    used.addAndGet(-n);
  }

  /** Bytes no session holds (racy). */
  long available() {
    return Math.max(0, max - used.get());
  }

  long max() {
    return max;
  }

  long used() {
    return used.get();
  }
}
