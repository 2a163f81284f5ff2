package io.sluice.lease.adaptive;

import io.sluice.lease.LeaseGrants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link LeaseGrants} that records every grant, on a scheduler that runs its timers only when
 * the test moves the shared clock ({@link Clock#advance}). Each has a scheduler of its own unless
 * made on a shared one ({@link #FakeGrants(FakeScheduler)}: connections on one event loop).
 * Single-threaded: the test's thread is every connection's "event loop".
 */
final class FakeGrants implements LeaseGrants {
  record Grant(Duration ttl, int requests, int maxRank) {}

  /** A clock in nanoseconds that the test moves; it runs the timers of every scheduler on it. */
  static final class Clock {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<FakeScheduler> schedulers = new ArrayList<>();

    long now() {
      return nanos.get();
    }

    /** Timers not canceled, on every scheduler of this clock. */
    long liveTimers() {
      return schedulers.stream().mapToLong(FakeScheduler::live).sum();
    }

    /** Moves time forward in steps, running each timer as it falls due, in time order. */
    void advance(Duration d) {
      long end = nanos.get() + d.toNanos();
      for (int guard = 0; guard < 10_000_000; guard++) {
        Timer due = null;
        for (FakeScheduler s : schedulers) {
          if (s.blocked) {
            continue; // a blocked loop runs nothing, its timers neither
          }
          for (Timer t : s.timers) {
            if (!t.canceled && t.next <= end && (due == null || t.next < due.next)) {
              due = t;
            }
          }
        }
        if (due == null) {
          nanos.set(end);
          return;
        }
        nanos.set(Math.max(nanos.get(), due.next));
        due.next += due.period;
        due.task.run();
      }
      throw new AssertionError("timers kept falling due");
    }
  }

  final List<Grant> grants = new ArrayList<>();
  final FakeScheduler scheduler;
  boolean open = true;
  /** Requests of the last grant the client has spent (the test sets it); a new grant resets it. */
  int spent;
  /** Every grant throws (an engine that fails), after the test sets it. */
  boolean failing;

  FakeGrants(Clock clock) {
    this(new FakeScheduler(clock));
  }

  FakeGrants(FakeScheduler scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void grant(Duration ttl, int requests, int maxRank) {
    if (ttl.isNegative() || ttl.isZero() || requests < 0 || maxRank < 0) {
      throw new IllegalArgumentException("bad grant " + ttl + " " + requests + " " + maxRank);
    }
    if (failing) {
      throw new IllegalStateException("failing on purpose");
    }
    grants.add(new Grant(ttl, requests, maxRank));
    spent = 0;
  }

  @Override
  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  @Override
  public int remaining() {
    return grants.isEmpty() ? 0 : Math.max(0, grants.get(grants.size() - 1).requests() - spent);
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  Grant last() {
    return grants.get(grants.size() - 1);
  }

  /** One fixed-rate timer. */
  static final class Timer implements ScheduledFuture<Object> {
    final Runnable task;
    final long period;
    long next;
    boolean canceled;

    Timer(Runnable task, long next, long period) {
      this.task = task;
      this.next = next;
      this.period = period;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int compareTo(Delayed o) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean was = canceled;
      canceled = true;
      return !was;
    }

    @Override
    public boolean isCancelled() {
      return canceled;
    }

    @Override
    public boolean isDone() {
      return canceled;
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }

  /**
   * Only fixed-rate timers and execute (which runs the task at once and counts it); the rest is
   * not what a lease policy needs. Once {@link #shutDown} is set it refuses both, as a loop that
   * shut down does.
   */
  static final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    final Clock clock;
    final List<Timer> timers = new ArrayList<>();
    /** Tasks run through {@link #execute}. */
    int executed;
    boolean shutDown;
    /**
     * A loop that a handler blocks: its timers do not run and tasks handed to it wait, until the
     * test clears it and calls {@link #unblock}.
     */
    boolean blocked;
    private final List<Runnable> waiting = new ArrayList<>();

    /** A scheduler whose timers {@code clock} runs. */
    FakeScheduler(Clock clock) {
      this.clock = clock;
      clock.schedulers.add(this);
    }

    /** Timers not canceled. */
    long live() {
      return timers.stream().filter(t -> !t.canceled).count();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      if (period <= 0) {
        throw new IllegalArgumentException("period " + period);
      }
      if (shutDown) {
        throw new RejectedExecutionException("shut down");
      }
      Timer t = new Timer(command, clock.now() + unit.toNanos(initialDelay), unit.toNanos(period));
      timers.add(t);
      return t;
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      return scheduleAtFixedRate(command, initialDelay, delay, unit);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("one-shot timers are not faked");
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException("one-shot timers are not faked");
    }

    @Override
    public void execute(Runnable command) {
      if (shutDown) {
        throw new RejectedExecutionException("shut down");
      }
      executed++;
      if (blocked) {
        waiting.add(command);
        return;
      }
      command.run();
    }

    /** The loop runs again: the tasks handed to it meanwhile run now, in order. */
    void unblock() {
      blocked = false;
      List<Runnable> tasks = new ArrayList<>(waiting);
      waiting.clear();
      tasks.forEach(Runnable::run);
    }

    @Override
    public void shutdown() {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Runnable> shutdownNow() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isShutdown() {
      return shutDown;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}
