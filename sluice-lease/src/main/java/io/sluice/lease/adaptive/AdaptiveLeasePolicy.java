package io.sluice.lease.adaptive;

import io.sluice.Message;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.RequestStats;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * A lease policy that learns the server's capacity from what it measures: a server-wide
 * concurrency limit moved by handler latency (a gradient limit, see below), shared out as leases
 * among the connections, with lower priority ranks refused first as the calls in flight near the
 * limit. It is what {@code ./sluice server --lease} runs, and docs/guide/leasing.md describes it.
 *
 * <p><b>What it measures</b> (its own {@link #requestStats()}, which the engine feeds): calls in
 * flight (started minus ended, every connection of the policy together) and the latency of each
 * call's first response, for the kinds of request {@link Builder#measure} names (all by default). Every {@link Builder#sampleWindow sample window} with at least {@link
 * Builder#minSamples minSamples} latencies, the window's mean latency moves the limit: it grows
 * while the recent latency (a moving average of window means) stays within {@link
 * Builder#tolerance tolerance} of the no-load latency (the lowest the recent latency was over the
 * last {@link Builder#noLoadWindow noLoadWindow}) and the calls that answer use at least half of
 * it, and shrinks as latency rises while the limit is in play (those calls, or every call in
 * flight, at least half of it; below that the rise is not the limit's doing, and a limit below its
 * initial value grows back towards it instead); {@link Builder#smoothing smoothed}, clamped to
 * [{@link Builder#minLimit minLimit}, {@link Builder#maxLimit maxLimit}].
 *
 * <p><b>How it grants</b>: the connections share the requests that keep about {@code limit} calls in
 * flight at the recent latency, per time to live ({@code limit * ttl / latency}; before the first
 * measurement the latency is taken as 1 ms) by what they use: each tick a connection is given twice
 * the rate at which it spent its last grant (at least 1), as long as that is no more than an equal
 * part of what the others leave; the busy ones share the rest equally, and what nobody needs is
 * spread over all. So an idle connection keeps a small grant, a busy one among many idle ones gets
 * most of the total, and every one gets at least 1 request (a connection joining gets an equal
 * share, {@code total / connections}). It grants at once on attach, again every half {@link
 * Builder#ttl ttl}, and early, within a sample window, when a connection's share moved by more than
 * {@link Builder#regrantChange regrantChange} or the admitted rank changed. The engine refuses
 * (REJECTED, the handler never sees it) what a grant does not cover.
 *
 * <p><b>Ranks</b>: with {@link Builder#ranks ranks(count, rankOf)}, {@link #admit} refuses a
 * request whose rank is above the admitted one, and each grant carries the admitted rank as its
 * {@code maxRank}; as calls in flight near the limit the lowest priorities (largest ranks) go
 * first, from {@link Builder#shedFrom shedFrom} of the limit; rank 0 is admitted while the lease
 * covers it and the limit is not full.
 *
 * <p><b>A bound on calls in flight</b>: while the calls in flight are at the limit, {@link #admit}
 * refuses every request (whatever the grants, which are a rate, said), and the grants are 0 until
 * the calls in flight are back below {@value #RESUME_BELOW} of it. Handlers that hang therefore
 * hold at most {@code limit} calls; request-responses that have not answered yet do not count as
 * use of the limit, so they do not make it grow either.
 *
 * <p><b>One tick per policy</b>: a single timer, every sample window (at most every half ttl),
 * moves the limit once and looks at every connection with the result; it runs on a daemon thread
 * shared by the adaptive policies of the JVM ({@code sluice-lease-tick}, gone a second after the
 * last leasing connection closes), not on an event loop, so a handler that blocks one loop delays
 * only the grants of that loop's connections (see {@code LeaseTick}). The connections are granted
 * on their own event loops.
 *
 * <p>Thread-safe: one instance serves every connection of a server. Per request it updates a few
 * striped counters (no lock, no clock read); the limit moves on the tick, one thread at a time. It
 * keeps the set of connections its tick visits; a closed connection leaves it.
 */
public final class AdaptiveLeasePolicy implements LeasePolicy {
  /** The latency assumed before the first measurement, for the first grants. */
  static final long ASSUMED_LATENCY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /**
   * Once the calls in flight filled the limit, the grants stay 0 until they are below this share
   * of it: a server at its limit does not re-grant every connection on every tick as calls end and
   * start around it.
   */
  static final double RESUME_BELOW = 0.9;

  private final Duration ttl;
  private final long ttlNanos;
  private final long sampleWindowNanos;
  private final int minSamples;
  private final double regrantChange;
  private final ToIntFunction<Message> rankOf;
  private final RankShedding shedding;
  private final LongSupplier ticker;
  private final String config;

  private final LoadMeter meter;
  private final AtomicInteger connections = new AtomicInteger();
  private final LeaseTick tick;
  private final GradientLimit gradient; // on the tick only
  private volatile long windowStart;
  private volatile double limit;
  private volatile long latencyNanos;
  private volatile long noLoadNanos;
  private volatile boolean saturated;
  private final Stats stats = new Stats();

  private AdaptiveLeasePolicy(Builder b) {
    this.ttl = b.ttl;
    this.ttlNanos = b.ttl.toNanos();
    this.sampleWindowNanos = b.sampleWindow.toNanos();
    this.minSamples = b.minSamples;
    this.regrantChange = b.regrantChange;
    this.rankOf = b.rankOf;
    this.shedding = new RankShedding(b.ranks, b.shedFrom);
    this.ticker = b.ticker;
    this.meter = new LoadMeter(b.measured);
    int baselineWindows =
        (int) Math.max(1, Math.min(Builder.MAX_BASELINE_WINDOWS, b.noLoadWindow.toNanos() / sampleWindowNanos));
    this.gradient =
        new GradientLimit(b.initialLimit, b.minLimit, b.maxLimit, b.tolerance, b.smoothing, baselineWindows);
    this.limit = gradient.limit();
    this.windowStart = ticker.getAsLong();
    this.tick =
        new LeaseTick(this, b.tickScheduler != null ? b.tickScheduler : TickScheduler.shared(), tickNanos());
    this.config =
        "AdaptiveLeasePolicy(ttl=" + ttl + ", limit=" + b.initialLimit + " in [" + b.minLimit + ", "
            + b.maxLimit + "], sampleWindow=" + b.sampleWindow + ", minSamples=" + b.minSamples
            + ", noLoadWindow=" + b.noLoadWindow + ", tolerance=" + b.tolerance + ", smoothing="
            + b.smoothing + ", regrantChange=" + b.regrantChange + ", ranks=" + b.ranks
            + ", shedFrom=" + b.shedFrom + ", measured=" + b.measured + ")";
  }

  /** A builder with the documented defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy with every default (see {@link Builder}). */
  public static AdaptiveLeasePolicy withDefaults() {
    return builder().build();
  }

  @Override
  public ConnectionLease attach(LeaseGrants grants) {
    Objects.requireNonNull(grants, "grants");
    connections.incrementAndGet();
    LeasedConnection c = new LeasedConnection(this, grants);
    try {
      tick.join(c);
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
    return c;
  }

  @Override
  public RequestStats requestStats() {
    return meter;
  }

  /** The live figures of this policy, for metrics and logs. */
  public LeaseStats stats() {
    return stats;
  }

  @Override
  public String toString() {
    return config;
  }

  // ---- for LeasedConnection and LeaseTick

  long now() {
    return ticker.getAsLong();
  }

  Duration ttl() {
    return ttl;
  }

  long renewNanos() {
    return ttlNanos / 2;
  }

  /** How often the tick runs: a sample window, at most half the ttl. */
  long tickNanos() {
    return Math.max(1, Math.min(sampleWindowNanos, ttlNanos / 2));
  }

  double regrantChange() {
    return regrantChange;
  }

  void detach(LeasedConnection c) {
    connections.decrementAndGet();
    tick.leave(c);
  }

  /** The tick, for tests. */
  LeaseTick tick() {
    return tick;
  }

  /** Closes the sample window and moves the limit, if a window is due. On the tick only. */
  void maybeUpdate(long now) {
    long start = windowStart;
    if (now - start < sampleWindowNanos || meter.samples() < minSamples) {
      return;
    }
    LoadMeter.Window w = meter.drain();
    windowStart = now;
    if (w.count() == 0) {
      return;
    }
    // Calls in flight on average over the window (Little's law over the latencies it saw), or the
    // calls in flight now that have answered (streams sending), whichever is more. Request-responses
    // still waiting for their handler do not count: a hung handler is no sign that the server could
    // carry more, and counting it would raise the limit while the hung calls pile up.
    long inFlight = meter.inFlight();
    double answering = Math.max(0, inFlight - meter.awaiting());
    double concurrency = Math.max(answering, (double) w.sumNanos() / (now - start));
    limit = gradient.update(w.meanNanos(), concurrency, inFlight);
    latencyNanos = Math.round(gradient.recentNanos());
    noLoadNanos = gradient.noLoadNanos();
  }

  /**
   * Whether the calls in flight filled the limit: set on a tick that finds the limit reached, cleared
   * on one that finds them below {@link #RESUME_BELOW} of it. While set, the grants are 0. On the
   * tick only (read anywhere).
   */
  void checkSaturation() {
    long inFlight = meter.inFlight();
    double l = limit;
    if (inFlight >= l) {
      saturated = true;
    } else if (inFlight < l * RESUME_BELOW) {
      saturated = false;
    }
  }

  /**
   * The requests per ttl that keep about {@code limit} calls in flight at the recent latency, for
   * every connection together; 0 while the calls in flight fill the limit.
   */
  double requestsPerTtl() {
    if (saturated) {
      return 0;
    }
    long latency = latencyNanos > 0 ? latencyNanos : ASSUMED_LATENCY_NANOS;
    return limit * ((double) ttlNanos / latency);
  }

  long ttlNanos() {
    return ttlNanos;
  }

  /**
   * An equal share of {@link #requestsPerTtl} per connection (what a connection gets on joining,
   * and the average share); at least 1, but 0 while the calls in flight fill the limit.
   */
  int requestsPerConnection() {
    double total = requestsPerTtl();
    if (total == 0) {
      return 0;
    }
    double share = Math.ceil(total / Math.max(1, connections.get()));
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, share));
  }

  int admittedMaxRank() {
    return shedding.admittedMaxRank(meter.inFlight(), limit);
  }

  /**
   * {@link ConnectionLease#admit}: refuses every request while the calls in flight fill the limit
   * (the bound on calls taken on at once, whatever the grants said), and a rank above the admitted
   * one.
   */
  boolean admit(Message request) {
    if (meter.inFlight() >= limit) {
      return false;
    }
    if (shedding.ranks() == 1) {
      return true;
    }
    int rank;
    try {
      rank = shedding.clamp(rankOf.applyAsInt(request));
    } catch (RuntimeException e) {
      rank = shedding.ranks() - 1; // unreadable: the lowest priority
    }
    return rank == 0 || rank <= admittedMaxRank();
  }

  /** {@link LeaseStats} over this policy's fields. */
  private final class Stats implements LeaseStats {
    @Override
    public int limit() {
      return (int) Math.round(limit);
    }

    @Override
    public long inFlight() {
      return meter.inFlight();
    }

    @Override
    public long latencyNanos() {
      return latencyNanos;
    }

    @Override
    public long noLoadLatencyNanos() {
      return noLoadNanos;
    }

    @Override
    public int admittedMaxRank() {
      return AdaptiveLeasePolicy.this.admittedMaxRank();
    }

    @Override
    public int connections() {
      return connections.get();
    }

    @Override
    public int requestsPerConnection() {
      return AdaptiveLeasePolicy.this.requestsPerConnection();
    }

    @Override
    public long started() {
      return meter.started();
    }

    @Override
    public long rejected() {
      return meter.rejected();
    }

    @Override
    public String toString() {
      int rank = admittedMaxRank();
      return "limit=" + limit() + " inFlight=" + inFlight() + " latencyUs="
          + latencyNanos / 1000 + " noLoadUs=" + noLoadNanos / 1000 + " maxRank="
          + (rank == LeaseGrants.ALL_RANKS ? "all" : Integer.toString(rank)) + " connections="
          + connections() + " perConnection=" + requestsPerConnection() + " started=" + started()
          + " rejected=" + rejected();
    }
  }

  /**
   * Settings of an {@link AdaptiveLeasePolicy}; each setter documents its default. Not
   * thread-safe; {@link #build} may be called more than once (each policy learns on its own).
   */
  public static final class Builder {
    static final int MAX_BASELINE_WINDOWS = 1024;
    static final int MAX_RANKS = 1024;

    private Duration ttl = Duration.ofSeconds(2);
    private int initialLimit = 100;
    private int minLimit = 10;
    private int maxLimit = 2000;
    private Duration sampleWindow = Duration.ofMillis(100);
    private int minSamples = 10;
    private Duration noLoadWindow = Duration.ofSeconds(10);
    private double tolerance = 1.5;
    private double smoothing = 0.2;
    private double regrantChange = 0.25;
    private int ranks = 1;
    private ToIntFunction<Message> rankOf = m -> 0;
    private double shedFrom = 0.5;
    private LongSupplier ticker = System::nanoTime;
    private ScheduledExecutorService tickScheduler; // null: TickScheduler.shared()
    private Set<RequestStats.Kind> measured = EnumSet.allOf(RequestStats.Kind.class);

    private Builder() {}

    /**
     * How long each grant lasts (default 2 s; 1 ms to 2^31-1 ms). Grants are renewed every half
     * of it, so a client that stops hearing from the server runs dry within it.
     */
    public Builder ttl(Duration ttl) {
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.toMillis() <= 0 || ttl.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("ttl must be 1 ms to 2^31-1 ms, got " + ttl);
      }
      this.ttl = ttl;
      return this;
    }

    /** The concurrency limit before anything is measured (default 100). */
    public Builder initialLimit(int limit) {
      this.initialLimit = atLeastOne(limit, "initialLimit");
      return this;
    }

    /** The limit never goes below this (default 10), however high latency climbs. */
    public Builder minLimit(int limit) {
      this.minLimit = atLeastOne(limit, "minLimit");
      return this;
    }

    /**
     * The limit never goes above this (default 2000), however low latency stays: a finite bound
     * on the calls in flight (beyond the limit requests are refused) when latency does not show
     * the server's limits (memory).
     */
    public Builder maxLimit(int limit) {
      this.maxLimit = atLeastOne(limit, "maxLimit");
      return this;
    }

    /** How often the limit may move (default 100 ms; 1 ms to 1 minute). */
    public Builder sampleWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.toMillis() < 1 || window.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("sampleWindow must be 1 ms to 1 minute, got " + window);
      }
      this.sampleWindow = window;
      return this;
    }

    /**
     * Latency samples a window needs before it moves the limit (default 10); a window with
     * fewer stays open until it has them.
     */
    public Builder minSamples(int samples) {
      this.minSamples = atLeastOne(samples, "minSamples");
      return this;
    }

    /**
     * How far back the no-load latency looks: it is the lowest the recent latency was in this period
     * (default 10 s; at most 1024 sample windows are kept). A lasting change of the handlers'
     * latency becomes the new no-load latency after it.
     */
    public Builder noLoadWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("noLoadWindow must be positive, got " + window);
      }
      this.noLoadWindow = window;
      return this;
    }

    /**
     * How far above the no-load latency the recent latency may go and still count as unloaded
     * (default 1.5; at least 1): the limit grows below it and shrinks above it.
     */
    public Builder tolerance(double tolerance) {
      if (!(tolerance >= 1.0) || Double.isInfinite(tolerance)) {
        throw new IllegalArgumentException("tolerance must be at least 1, got " + tolerance);
      }
      this.tolerance = tolerance;
      return this;
    }

    /**
     * How much of each window's move the limit takes (default 0.2; above 0, at most 1): 1 jumps
     * to each window's figure, smaller values damp noise.
     */
    public Builder smoothing(double smoothing) {
      if (!(smoothing > 0 && smoothing <= 1)) {
        throw new IllegalArgumentException("smoothing must be in (0, 1], got " + smoothing);
      }
      this.smoothing = smoothing;
      return this;
    }

    /**
     * A connection is granted again before its renewal when its share moved by more than this
     * fraction (default 0.25; above 0).
     */
    public Builder regrantChange(double change) {
      if (!(change > 0) || Double.isInfinite(change)) {
        throw new IllegalArgumentException("regrantChange must be positive, got " + change);
      }
      this.regrantChange = change;
      return this;
    }

    /**
     * Priority ranks: {@code count} ranks, 0 the highest priority and {@code count - 1} the
     * lowest, and how to read a request's rank (a rank above {@code count - 1} counts as {@code
     * count - 1}, below 0 as 0; a function that throws gives the lowest). Default: 1 rank, every
     * request rank 0, so nothing is shed by rank. For RPC services the rank travels in the call
     * metadata (the {@code rank} method option). The function runs on the event loop for every
     * request once shedding is on: keep it cheap, and never keep or release the message.
     */
    public Builder ranks(int count, ToIntFunction<Message> rankOf) {
      if (count < 1 || count > MAX_RANKS) {
        throw new IllegalArgumentException("ranks must be 1 to " + MAX_RANKS + ", got " + count);
      }
      this.ranks = count;
      this.rankOf = Objects.requireNonNull(rankOf, "rankOf");
      return this;
    }

    /**
     * The share of the limit in flight from which ranks are shed (default 0.5; 0 to below 1):
     * with {@code n} ranks, rank {@code r >= 1} is refused from {@code shedFrom + (1 - shedFrom)
     * * (n - r) / n} of the limit in flight, so the lowest priority goes first.
     */
    public Builder shedFrom(double fraction) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("shedFrom must be in [0, 1), got " + fraction);
      }
      this.shedFrom = fraction;
      return this;
    }

    /**
     * The kinds of request the policy measures: counted in flight while they run, and timed to
     * their first response (default: all four; a fire-and-forget is never timed, it has no
     * response). A server whose streams stay open for long, or answer their first message late
     * (subscriptions to events), measures {@code REQUEST_RESPONSE} only, so that idle streams do
     * not count as load. Leases and rank shedding still cover every kind.
     */
    public Builder measure(Set<RequestStats.Kind> kinds) {
      Objects.requireNonNull(kinds, "kinds");
      if (kinds.isEmpty()) {
        throw new IllegalArgumentException("measure at least one kind of request");
      }
      this.measured = EnumSet.copyOf(kinds);
      return this;
    }

    /** The clock, in nanoseconds (default {@link System#nanoTime}); tests drive their own. */
    Builder ticker(LongSupplier ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Where the tick runs (default: {@link TickScheduler#shared()}); tests drive their own. */
    Builder tickScheduler(ScheduledExecutorService scheduler) {
      this.tickScheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * The policy.
     *
     * @throws IllegalArgumentException unless {@code minLimit <= initialLimit <= maxLimit}
     */
    public AdaptiveLeasePolicy build() {
      if (minLimit > initialLimit || initialLimit > maxLimit) {
        throw new IllegalArgumentException(
            "limits must satisfy minLimit <= initialLimit <= maxLimit, got " + minLimit + " <= "
                + initialLimit + " <= " + maxLimit);
      }
      return new AdaptiveLeasePolicy(this);
    }

    private static int atLeastOne(int v, String name) {
      if (v < 1) {
        throw new IllegalArgumentException(name + " must be at least 1, got " + v);
      }
      return v;
    }
  }
}
