package io.sluice.lease.adaptive;

/**
 * A server-wide concurrency limit moved by a latency gradient, once per sampling window.
 *
 * <p>Two latency figures: the <em>recent latency</em>, an exponentially weighted mean of the window
 * means (weight {@value #RECENT_WEIGHT} for the newest; a window's mean counts as at most {@value
 * #MAX_STEP} times the recent latency once the warm-up is over, so one window of a pause, a GC or
 * a host that stalls every process on it, is not taken for overload, while a lasting rise is within
 * a few windows), and the
 * <em>no-load latency</em>, the
 * lowest value the recent latency took over the last {@code baselineWindows} windows (what the
 * handlers take when nothing queues). The no-load latency is a minimum of the smoothed figure, not
 * of raw window means: one lucky window on a noisy host would otherwise set a baseline that the
 * average never comes near, and the limit would shrink for ever. Their ratio is the gradient:
 *
 * <pre>
 *   gradient = clamp(tolerance * noLoad / recent, 0.5, 1)
 *   target   = limit * gradient + sqrt(limit)
 *   limit    = clamp((1 - smoothing) * limit + smoothing * target, minLimit, maxLimit)
 * </pre>
 *
 * While the recent latency stays within {@code tolerance} of the no-load latency the gradient is 1
 * and the limit grows by a fraction of its square root per window; as latency rises beyond that,
 * the limit shrinks by up to half per window (before smoothing).
 *
 * <p><b>Use.</b> The limit grows only while the server uses at least half of it by the calls that
 * answer (the window's concurrency: a hung handler is no sign that the server could carry more). It
 * shrinks only while the limit is in play: that concurrency, or all calls in flight (those waiting
 * for their handler too), at least half of it. Below that the rise in latency is not the limit's
 * doing, and shrinking there ratcheted a lightly used server's limit down on every pause and never
 * let it grow back, until the next pause found every server of a fleet at its minimum and
 * refusing; instead an unused limit below its initial value grows back towards it (the operator's
 * prior, not more) while latency is at its no-load level.
 * A slower handler that stays slow for {@code baselineWindows} becomes the new no-load latency, so
 * the limit recovers from a lasting change of the work itself. The first {@value #WARMUP_WINDOWS}
 * windows only teach the recent latency; the limit moves from the next one.
 *
 * <p>Not thread-safe: {@link AdaptiveLeasePolicy} calls {@link #update} from one thread at a time
 * and publishes what it returns.
 */
final class GradientLimit {
  static final double RECENT_WEIGHT = 0.3;
  static final double MIN_GRADIENT = 0.5;
  /** A window's mean counts as at most this many times the recent latency. */
  static final double MAX_STEP = 2.0;
  /**
   * Windows that only teach the recent latency, at start: the average begins at the first window's
   * mean and needs a few windows to mean anything, and a minimum taken of it earlier would keep
   * one early window as the no-load latency for a whole no-load window.
   */
  static final int WARMUP_WINDOWS = 5;

  private final double initialLimit;
  private final double minLimit;
  private final double maxLimit;
  private final double tolerance;
  private final double smoothing;
  private final long[] baseline; // window means, a ring; 0 = empty slot
  private int next;
  private long windows;
  private double limit;
  private double recentNanos;

  GradientLimit(
      int initialLimit, int minLimit, int maxLimit, double tolerance, double smoothing, int baselineWindows) {
    this.minLimit = minLimit;
    this.maxLimit = maxLimit;
    this.initialLimit = Math.max(minLimit, Math.min(maxLimit, initialLimit));
    this.tolerance = tolerance;
    this.smoothing = smoothing;
    this.baseline = new long[baselineWindows];
    this.limit = Math.max(minLimit, Math.min(maxLimit, initialLimit));
  }

  /**
   * One window's measurements in, the new limit out.
   *
   * @param meanLatencyNanos the window's mean latency (positive)
   * @param concurrency calls the server kept in flight on average over the window, of those that
   *     answer
   * @param inFlight every call in flight now, those waiting for their handler too
   */
  double update(long meanLatencyNanos, double concurrency, double inFlight) {
    if (meanLatencyNanos <= 0) {
      return limit;
    }
    // In the warm-up the average is still learning where latency is: no clamp.
    double mean = windows < WARMUP_WINDOWS ? meanLatencyNanos : Math.min(meanLatencyNanos, MAX_STEP * recentNanos);
    recentNanos = recentNanos == 0 ? meanLatencyNanos : recentNanos + RECENT_WEIGHT * (mean - recentNanos);
    if (++windows <= WARMUP_WINDOWS) {
      return limit;
    }
    baseline[next] = Math.max(1, Math.round(recentNanos));
    next = (next + 1) % baseline.length;
    double gradient =
        Math.max(MIN_GRADIENT, Math.min(1.0, tolerance * noLoadNanos() / recentNanos));
    double target = limit * gradient + Math.sqrt(limit);
    double ceiling = maxLimit;
    if (Math.max(concurrency, inFlight) < limit / 2) {
      // Not in play: no shrinking; back towards the initial limit while latency is at no load.
      if (gradient < 1.0 || limit >= initialLimit) {
        return limit;
      }
      ceiling = initialLimit;
    } else if (target > limit && concurrency < limit / 2) {
      target = limit; // no growth on calls that do not answer
    }
    double smoothed = (1 - smoothing) * limit + smoothing * target;
    limit = Math.max(minLimit, Math.min(ceiling, smoothed));
    return limit;
  }

  double limit() {
    return limit;
  }

  /** The recent latency (EWMA of window means), 0 before the first window. */
  double recentNanos() {
    return recentNanos;
  }

  /**
   * The lowest recent latency of the last windows; during the warm-up, the recent latency; 0
   * before the first window.
   */
  long noLoadNanos() {
    long min = Long.MAX_VALUE;
    for (long v : baseline) {
      if (v > 0 && v < min) {
        min = v;
      }
    }
    return min == Long.MAX_VALUE ? Math.round(recentNanos) : min;
  }
}
