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
      double total = policy.requestsPerTtl();
      int rank = policy.admittedMaxRank();
      int n = 0;
      for (LeasedConnection c : connections) {
        if (n == visit.length) {
          visit = java.util.Arrays.copyOf(visit, n * 2);
          needs = java.util.Arrays.copyOf(needs, n * 2);
        }
        visit[n] = c;
        needs[n] = c.need(now);
        n++;
      }
      Shares shares = Shares.of(needs, n, total, sorted());
      Map<ScheduledExecutorService, Batch> batches = null;
      for (int i = 0; i < n; i++) {
        LeasedConnection c = visit[i];
        visit[i] = null;
        int requests = total == 0 ? 0 : shares.of(needs[i]);
        if (c.due(now, requests, rank)) {
          if (batches == null) {
            batches = new IdentityHashMap<>();
          }
          batches.computeIfAbsent(c.scheduler(), l -> new Batch(rank)).add(c, requests);
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

  // Reused from tick to tick (ticks run one at a time): the connections visited and their needs.
  private LeasedConnection[] visit = new LeasedConnection[16];
  private double[] needs = new double[16];
  private double[] sorted = new double[16];

  private double[] sorted() {
    if (sorted.length < needs.length) {
      sorted = new double[needs.length];
    }
    return sorted;
  }

  /**
   * How one tick shares the requests per ttl among the connections by what they need (max-min
   * fair): a connection that needs less than an equal part of what is left gets what it needs, the
   * others share the rest equally (the <em>level</em>); what nobody needs is spread equally over all.
   * So idle connections keep a small grant and a busy one gets the rest, instead of every connection
   * an equal part whether it uses it or not.
   */
  static final class Shares {
    private final double level;
    private final double extra;

    private Shares(double level, double extra) {
      this.level = level;
      this.extra = extra;
    }

    /**
     * {@code needs[0..n)} requests per ttl, {@code total} to share; {@code scratch} at least {@code
     * n} long.
     */
    static Shares of(double[] needs, int n, double total, double[] scratch) {
      if (n == 0) {
        return new Shares(Double.POSITIVE_INFINITY, 0);
      }
      System.arraycopy(needs, 0, scratch, 0, n);
      java.util.Arrays.sort(scratch, 0, n);
      double left = total;
      for (int i = 0; i < n; i++) {
        int rest = n - i;
        if (scratch[i] * rest > left) {
          return new Shares(left / rest, 0); // the rest share what is left
        }
        left -= scratch[i];
      }
      return new Shares(Double.POSITIVE_INFINITY, left / n); // every need met; spread what is left
    }

    /** The grant of a connection that needs {@code need}: at least 1. */
    int of(double need) {
      double share = Math.ceil(Math.min(need, level) + extra);
      return (int) Math.max(1, Math.min(Integer.MAX_VALUE, share));
    }
  }

  /** The grants of one tick for the connections of one event loop; runs on that loop. */
  private static final class Batch implements Runnable {
    private final int rank;
    private final List<LeasedConnection> due = new ArrayList<>();
    private final List<Integer> requests = new ArrayList<>();

    Batch(int rank) {
      this.rank = rank;
    }

    void add(LeasedConnection c, int r) {
      due.add(c);
      requests.add(r);
    }

    @Override
    public void run() {
      for (int i = 0; i < due.size(); i++) {
        try {
          due.get(i).send(requests.get(i), rank);
        } catch (Throwable e) {
          logger.warn("a lease grant failed", e);
        }
      }
    }
  }
}
