package io.sluice.lease.adaptive;

import io.sluice.lease.RequestStats;
import java.util.Set;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link RequestStats} of an {@link AdaptiveLeasePolicy}: counts requests started, ended and
 * rejected, and sums the latency of first responses since the last {@link #drain}. Every method is
 * a few striped-counter updates, safe from any number of event loops at once, with no lock and no
 * clock read.
 *
 * <p>Latency is the time to the first response of a request-response, request-stream or
 * request-channel: how long the handler took to answer. The end of a stream says how long the peer
 * kept it open, and a fire-and-forget has no answer, so neither is a latency sample (both still
 * count in flight while they run). Only the kinds of request it is told to measure count at all.
 * It also counts the request-responses that have not answered yet ({@link #awaiting}), so that
 * calls waiting on a hung handler are not taken for work the server is getting done.
 */
final class LoadMeter implements RequestStats {
  private final boolean[] measured = new boolean[Kind.values().length];
  private final LongAdder started = new LongAdder();
  private final LongAdder ended = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  /** Request-responses started and neither answered nor ended yet: waiting for their handler. */
  private final LongAdder awaiting = new LongAdder();
  private final LongAdder latencySum = new LongAdder();
  private final LongAdder latencyCount = new LongAdder();
  private final LongAccumulator latencyMin = new LongAccumulator(Math::min, Long.MAX_VALUE);

  LoadMeter(Set<Kind> kinds) {
    for (Kind k : kinds) {
      measured[k.ordinal()] = true;
    }
  }

  @Override
  public void onStart(Kind kind) {
    if (measured[kind.ordinal()]) {
      started.increment();
      if (kind == Kind.REQUEST_RESPONSE) {
        awaiting.increment();
      }
    }
  }

  @Override
  public void onFirstResponse(Kind kind, long latencyNanos) {
    if (!measured[kind.ordinal()]) {
      return;
    }
    if (kind == Kind.REQUEST_RESPONSE) {
      awaiting.decrement();
    }
    if (latencyNanos < 0) {
      return; // a clock that went backwards: not a sample
    }
    latencySum.add(latencyNanos);
    latencyCount.increment();
    latencyMin.accumulate(latencyNanos);
  }

  @Override
  public void onEndUnanswered(Kind kind) {
    if (kind == Kind.REQUEST_RESPONSE && measured[kind.ordinal()]) {
      awaiting.decrement();
    }
  }

  @Override
  public void onEnd(Kind kind, long latencyNanos, Outcome outcome) {
    if (measured[kind.ordinal()]) {
      ended.increment();
    }
  }

  @Override
  public void onRejected(Kind kind) {
    rejected.increment();
  }

  /**
   * Calls in flight now: started minus ended. A snapshot that a concurrent start or end may make
   * off by the few calls that race it; never negative.
   */
  long inFlight() {
    // ended first: a call that ends between the two reads is then counted as still in flight
    // rather than as ended before it started.
    long e = ended.sum();
    return Math.max(0, started.sum() - e);
  }

  /**
   * Request-responses in flight that have not answered yet (their handler is still at work, or
   * hangs); a snapshot, never negative.
   */
  long awaiting() {
    return Math.max(0, awaiting.sum());
  }

  long started() {
    return started.sum();
  }

  long rejected() {
    return rejected.sum();
  }

  /** Latency samples since the last {@link #drain}. */
  long samples() {
    return latencyCount.sum();
  }

  /**
   * The latency samples since the last drain, and starts a new window. Samples recorded while it
   * runs land in this window or the next one; the window's figures are close, not exact.
   */
  Window drain() {
    long count = latencyCount.sumThenReset();
    long sum = latencySum.sumThenReset();
    long min = latencyMin.getThenReset();
    return new Window(count, sum, count == 0 ? 0 : min);
  }

  /** What one sampling window measured. */
  record Window(long count, long sumNanos, long minNanos) {
    long meanNanos() {
      return count == 0 ? 0 : Math.max(1, sumNanos / count);
    }
  }
}
