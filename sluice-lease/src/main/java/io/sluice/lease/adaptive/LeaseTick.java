package io.sluice.lease.adaptive;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one timer of an {@link AdaptiveLeasePolicy}: every tick it moves the server-wide limit once,
 * works out the share and the admitted rank once, and then looks at every leasing connection with
 * that one result, so the work per tick is one limit update plus a comparison per connection, and
 * the timers are one per policy, not one per connection.
 *
 * <p><b>Where it runs.</b> On the policy's tick scheduler ({@link TickScheduler}: one daemon thread
 * shared by the adaptive policies of the JVM), never on a connection's event loop: a handler that
 * blocks one event loop then delays the grants of that loop's connections only, not every
 * connection's renewal. The timer starts with the first connection that joins and stops when the
 * last one leaves; the next one to join starts it again.
 *
 * <p><b>Grants.</b> A connection is granted on its own loop: the grants one tick makes go as one
 * task per event loop, not one hand-off per connection (which would also give every leasing
 * connection a command queue of its own in the engine). The first grant is made at once on
 * {@link #join}, on the joining connection's loop, and is dated at the tick before it, so its
 * renewal comes on the shared tick and never later than it would on a timer of its own.
 *
 * <p><b>Threads.</b> {@link #join} and {@link #leave} run on the connection's loop and take a
 * lock (once per connection set up or closed, never per request); ticks run one at a time (a tick
 * that finds another still running skips its turn).
 */
final class LeaseTick implements Runnable {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(LeaseTick.class);

  private final AdaptiveLeasePolicy policy;
  private final ScheduledExecutorService scheduler;
  private final long periodNanos;
  /** The connections the tick visits: every joined connection not yet closed. */
  private final Set<LeasedConnection> connections = ConcurrentHashMap.newKeySet();
  /** Held while a tick runs: ticks run one at a time, and LeasedConnection's records with them. */
  private final AtomicBoolean ticking = new AtomicBoolean();
  private final Object lock = new Object();
  private ScheduledFuture<?> timer; // guarded by lock; null while stopped
  /** When the last tick ran (or the timer started): the date of a joining connection's grant. */
  private volatile long lastTickAt;

  LeaseTick(AdaptiveLeasePolicy policy, ScheduledExecutorService scheduler, long periodNanos) {
    this.policy = policy;
    this.scheduler = scheduler;
    this.periodNanos = periodNanos;
  }

  /**
   * A connection starts leasing: it is granted at once and visited from the next tick on. Starts
   * the timer if none runs. Call on the connection's loop.
   *
   * @throws RejectedExecutionException if the timer had to start and the scheduler refused it;
   *     the caller closes the connection (which makes it {@link #leave})
   */
  void join(LeasedConnection c) {
    int requests;
    int rank;
    synchronized (lock) {
      long now = policy.now();
      boolean start = timer == null;
      if (start) {
        lastTickAt = now;
      }
      requests = policy.requestsPerConnection();
      rank = policy.admittedMaxRank();
      c.granted(lastTickAt, requests, rank);
      connections.add(c);
      if (start) {
        timer = scheduler.scheduleAtFixedRate(this, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
      }
    }
    c.send(requests, rank);
  }

  /** A connection closed: the tick no longer visits it; the timer stops with the last one. */
  void leave(LeasedConnection c) {
    synchronized (lock) {
      connections.remove(c);
      if (connections.isEmpty() && timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }
  }

  /** Connections the tick visits. */
  int size() {
    return connections.size();
  }

  /** True while a timer is scheduled. */
  boolean running() {
    synchronized (lock) {
      return timer != null;
    }
  }

  /** A tick. */
  @Override
  public void run() {
    if (!ticking.compareAndSet(false, true)) {
      return;
    }
    try {
      long now = policy.now();
      lastTickAt = now;
      policy.maybeUpdate(now);
      policy.checkSaturation();
      int requests = policy.requestsPerConnection();
      int rank = policy.admittedMaxRank();
      Map<ScheduledExecutorService, Batch> batches = null;
      for (LeasedConnection c : connections) {
        if (c.due(now, requests, rank)) {
          if (batches == null) {
            batches = new IdentityHashMap<>();
          }
          batches.computeIfAbsent(c.scheduler(), l -> new Batch(requests, rank)).add(c);
        }
      }
      if (batches != null) {
        for (Map.Entry<ScheduledExecutorService, Batch> e : batches.entrySet()) {
          try {
            e.getKey().execute(e.getValue());
          } catch (RejectedExecutionException gone) {
            // That loop shut down: its connections are closing and need no grant.
          }
        }
      }
    } catch (Throwable e) {
      // A fixed-rate timer whose task throws never runs again: leasing would stop server-wide.
      logger.warn("{}: a lease tick failed; the next one runs as usual", policy, e);
    } finally {
      ticking.set(false);
    }
  }

  /** The grants of one tick for the connections of one event loop; runs on that loop. */
  private static final class Batch implements Runnable {
    private final int requests;
    private final int rank;
    private final List<LeasedConnection> due = new ArrayList<>();

    Batch(int requests, int rank) {
      this.requests = requests;
      this.rank = rank;
    }

    void add(LeasedConnection c) {
      due.add(c);
    }

    @Override
    public void run() {
      for (LeasedConnection c : due) {
        try {
          c.send(requests, rank);
        } catch (Throwable e) {
          logger.warn("a lease grant failed", e);
        }
      }
    }
  }
}
