package io.sluice.benchmarks.harness;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Drives a {@link BalancerStrategy} open loop: call {@code i} is due at {@code start + i / rate}
 * whatever became of the calls before it, and its latency runs from that intended time, not from
 * when it was actually sent, so a stall of the sender or of a server counts against the latency
 * instead of hiding (coordinated omission). One sending thread; calls that fall behind are sent at
 * once when it wakes.
 *
 * <p>Bounded in count and time: at most {@link #maxInFlight(int)} calls outstanding (a call due
 * beyond that is not sent and counts as failed), and after the last one is due the run waits at
 * most {@link #DRAIN_SECONDS} for the outstanding ones; those still outstanding then count as
 * failed. Only calls due after the warm-up are measured.
 */
public final class OpenLoop {
  /** How long the run waits for outstanding calls after the last one is due. */
  public static final int DRAIN_SECONDS = 10;

  /** Failures printed to stderr per run (the rest are only counted). */
  private static final int FAILURES_SHOWN = 5;

  private final BalancerStrategy strategy;
  private final int servers;
  private final Recorder recorder = new Recorder(3);
  private final AtomicLongArray byServer;
  /** Failed calls that were measured. */
  private final AtomicLong failed = new AtomicLong();
  /** Failed calls, warm-up included (the progress lines). */
  private final AtomicLong failedAll = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failuresShown = new AtomicLong();
  private final Set<Call> outstanding = ConcurrentHashMap.newKeySet();

  private OpenLoop(BalancerStrategy strategy, int servers) {
    this.strategy = strategy;
    this.servers = servers;
    this.byServer = new AtomicLongArray(servers);
  }

  /** What a run measured after its warm-up. */
  public record Outcome(Histogram latencies, long[] byServer, long sent, long failed) {
    /**
     * {@code BALANCER sent=.. completed=.. failed=.. p50_ns=.. p99_ns=.. p999_ns=.. max_ns=..
     * by_server=a,b,..}: the line a client child ends with (-1 for percentiles of no call).
     */
    public String line() {
      boolean none = latencies.getTotalCount() == 0;
      StringBuilder counts = new StringBuilder();
      for (int i = 0; i < byServer.length; i++) {
        counts.append(i == 0 ? "" : ",").append(byServer[i]);
      }
      return String.format(
          Locale.ROOT,
          "BALANCER sent=%d completed=%d failed=%d p50_ns=%d p99_ns=%d p999_ns=%d max_ns=%d"
              + " by_server=%s",
          sent,
          latencies.getTotalCount(),
          failed,
          none ? -1 : latencies.getValueAtPercentile(50),
          none ? -1 : latencies.getValueAtPercentile(99),
          none ? -1 : latencies.getValueAtPercentile(99.9),
          none ? -1 : latencies.getMaxValue(),
          counts);
    }
  }

  /** The most calls outstanding at {@code rate} calls per second: ten seconds' worth, at least 1000. */
  public static int maxInFlight(int rate) {
    return (int) Math.min(1_000_000, Math.max(1000, 10L * rate));
  }

  /**
   * Runs {@code warmup} seconds, then {@code seconds} measured, at {@code rate} calls per second
   * against {@code servers} servers (ids 0 to servers - 1), printing one progress line a second to
   * {@code out}, and returns what was measured.
   */
  public static Outcome run(
      BalancerStrategy strategy, int servers, int rate, int warmup, int seconds, PrintStream out)
      throws InterruptedException {
    return new OpenLoop(strategy, servers).drive(rate, warmup, seconds, out);
  }

  private Outcome drive(int rate, int warmup, int seconds, PrintStream out)
      throws InterruptedException {
    long interval = TimeUnit.SECONDS.toNanos(1) / rate;
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
    long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    int limit = maxInFlight(rate);
    long sent = 0;
    long refused = 0;
    Progress progress = new Progress(start, warmup, out);
    for (long i = 0; ; i++) {
      long intended = start + i * interval;
      if (intended >= end) {
        break;
      }
      while (true) {
        long now = System.nanoTime();
        if (progress.due(now)) {
          continue;
        }
        if (now >= intended) {
          break;
        }
        LockSupport.parkNanos(Math.min(intended, progress.next) - now);
      }
      boolean measured = intended >= measureFrom;
      if (outstanding.size() >= limit) {
        failedAll.incrementAndGet();
        if (measured) {
          refused++;
          failed.incrementAndGet();
        }
        continue;
      }
      Call call = new Call(intended, measured);
      outstanding.add(call);
      if (measured) {
        sent++;
      }
      try {
        strategy.call(call);
      } catch (RuntimeException e) {
        call.fail(e);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
    while (!outstanding.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    long timedOut = 0;
    for (Call c : outstanding) {
      if (c.finish()) {
        outstanding.remove(c);
        failedAll.incrementAndGet();
        if (c.measured) {
          timedOut++;
          failed.incrementAndGet();
        }
      }
    }
    if (refused > 0 || timedOut > 0) {
      System.err.println("open loop: " + refused + " calls not sent (over " + limit
          + " outstanding), " + timedOut + " without an answer " + DRAIN_SECONDS
          + " s after the last was due: counted as failed");
    }
    long[] counts = new long[servers];
    for (int s = 0; s < servers; s++) {
      counts[s] = byServer.get(s);
    }
    return new Outcome(recorder.getIntervalHistogram(), counts, sent + refused, failed.get());
  }

  private void failed(Throwable cause, boolean measured) {
    failedAll.incrementAndGet();
    if (measured) {
      failed.incrementAndGet();
    }
    if (failuresShown.getAndIncrement() < FAILURES_SHOWN) {
      System.err.println("call failed" + (measured ? "" : " (warm-up)") + ": " + cause);
    }
  }

  /** One call; told once how it ended (a later report, or one after the drain, is ignored). */
  private final class Call extends AtomicBoolean implements BalancerStrategy.Done {
    private static final long serialVersionUID = 1L;
    final long intended;
    final boolean measured;

    Call(long intended, boolean measured) {
      this.intended = intended;
      this.measured = measured;
    }

    boolean finish() {
      return compareAndSet(false, true);
    }

    @Override
    public void complete(int serverId) {
      long now = System.nanoTime();
      if (!finish()) {
        return;
      }
      outstanding.remove(this);
      completed.incrementAndGet();
      if (!measured) {
        return;
      }
      if (serverId < 0 || serverId >= servers) {
        failed(new IllegalStateException("answer from unknown server id " + serverId), true);
        return;
      }
      recorder.recordValue(Math.max(0, now - intended));
      byServer.incrementAndGet(serverId);
    }

    @Override
    public void fail(Throwable cause) {
      if (!finish()) {
        return;
      }
      outstanding.remove(this);
      failed(cause, measured);
    }
  }

  /** Prints one progress line a second: calls completed and failed in it, outstanding now. */
  private final class Progress {
    private final int warmup;
    private final PrintStream out;
    long next;
    private int second;
    private long lastCompleted;
    private long lastFailed;

    Progress(long start, int warmup, PrintStream out) {
      this.next = start + TimeUnit.SECONDS.toNanos(1);
      this.warmup = warmup;
      this.out = out;
    }

    /** Prints the line of the second that ended by {@code now}, if one did; true if it printed. */
    boolean due(long now) {
      if (now < next) {
        return false;
      }
      second++;
      long c = completed.get();
      long f = failedAll.get();
      out.printf(Locale.ROOT, "second %d: completed %d, failed %d, outstanding %d%s%n", second,
          c - lastCompleted, f - lastFailed, outstanding.size(),
          second <= warmup ? " (warm-up)" : "");
      out.flush();
      lastCompleted = c;
      lastFailed = f;
      next += TimeUnit.SECONDS.toNanos(1);
      return true;
    }
  }
}
