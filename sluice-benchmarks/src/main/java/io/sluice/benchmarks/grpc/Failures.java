package io.sluice.benchmarks.grpc;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failed calls of a load that goes on after them: counted, and the first few printed (to stderr)
 * so that a run that fails every call does not print a line per call.
 */
public final class Failures {
  private static final int PRINTED = 3;
  private final AtomicLong count = new AtomicLong();
  private ScheduledExecutorService retries;

  /** A call failed: counted, and printed while few. */
  public void failed(Throwable cause) {
    long n = count.incrementAndGet();
    if (n <= PRINTED) {
      System.err.println(
          "call failed: " + cause + (n == PRINTED ? " (further failures counted only)" : ""));
    }
  }

  /** Runs {@code next} a millisecond from now on a daemon thread (made on the first failure). */
  public void later(Runnable next) {
    retries().schedule(next, 1, TimeUnit.MILLISECONDS);
  }

  private synchronized ScheduledExecutorService retries() {
    if (retries == null) {
      retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-retry");
        t.setDaemon(true);
        return t;
      });
    }
    return retries;
  }

  /** Calls failed so far. */
  public long count() {
    return count.get();
  }
}
