package io.sluice.lease.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import io.sluice.lease.RequestStats;
import io.sluice.lease.RequestStats.Kind;
import io.sluice.lease.RequestStats.Outcome;
import io.sluice.test.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link AdaptiveLeasePolicy} on a clock the test moves: the limit's moves, the grants, their
 * renewal, rank shedding and detaching. Nothing here depends on how fast the machine runs.
 */
class AdaptiveLeasePolicyTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final Duration WINDOW = Duration.ofMillis(100);

  private final FakeGrants.Clock clock = new FakeGrants.Clock();
  private final FakeGrants.FakeScheduler tickLoop = new FakeGrants.FakeScheduler(clock);

  private AdaptiveLeasePolicy.Builder builder() {
    return AdaptiveLeasePolicy.builder().ticker(clock::now).tickScheduler(tickLoop);
  }

  /**
   * One sample window: brings the calls in flight to {@code inFlight} (as calls that stay open),
   * records {@code samples} quick calls that answered after {@code latencyNanos}, then lets a
   * window pass so that the policy's tick moves the limit.
   */
  private void window(AdaptiveLeasePolicy policy, long inFlight, int samples, long latencyNanos) {
    RequestStats stats = policy.requestStats();
    long now = policy.stats().inFlight();
    for (long i = now; i < inFlight; i++) {
      stats.onStart(Kind.REQUEST_STREAM);
    }
    for (long i = now; i > inFlight; i--) {
      stats.onEnd(Kind.REQUEST_STREAM, latencyNanos, Outcome.COMPLETE);
    }
    for (int i = 0; i < samples; i++) {
      stats.onStart(Kind.REQUEST_RESPONSE);
      stats.onFirstResponse(Kind.REQUEST_RESPONSE, latencyNanos);
      stats.onEnd(Kind.REQUEST_RESPONSE, latencyNanos, Outcome.COMPLETE);
    }
    clock.advance(WINDOW);
  }

  /** A window with the limit well used (three quarters of it in flight). */
  private void fullWindow(AdaptiveLeasePolicy policy, long latencyNanos) {
    window(policy, policy.stats().limit() * 3L / 4, 20, latencyNanos);
  }

  @Test
  void theLimitGrowsWhileLatencyStaysAtItsNoLoadLevelAndTheLimitIsUsed() {
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    int before = policy.stats().limit();
    assertThat(before).isEqualTo(100); // the documented initial limit
    List<Integer> limits = new ArrayList<>();
    for (int w = 0; w < 50; w++) {
      fullWindow(policy, MS);
      limits.add(policy.stats().limit());
    }
    assertThat(limits).isSorted();
    assertThat(limits.get(limits.size() - 1)).isGreaterThan(before + 50);
    assertThat(policy.stats().latencyNanos()).isEqualTo(MS);
    assertThat(policy.stats().noLoadLatencyNanos()).isEqualTo(MS);
  }

  @Test
  void theLimitDoesNotGrowWhileTheServerUsesLessThanHalfOfIt() {
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 50; w++) {
      window(policy, 10, 20, MS); // 10 in flight of 100, and 20 x 1 ms over 100 ms is 0.2 more
    }
    assertThat(policy.stats().limit()).isEqualTo(100);
    // The same calls with the limit half used: it grows.
    window(policy, 50, 20, MS);
    assertThat(policy.stats().limit()).isGreaterThan(100);
  }

  @Test
  void latencyBlipsOnALightlyUsedServerDoNotRatchetTheLimitDown() {
    // 500 calls/s of 1 ms (0.5 in flight) with a 30 ms pause every second, as a host shared by a
    // fleet's processes stalls them all at once: the limit is not what made the latency rise, and
    // before it did not move, each pause took a fifth off the limit and nothing grew it back, so
    // it sat at its minimum (10) and the next pause's 15 piled-up calls were refused on every server.
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 200; w++) {
      window(policy, 1, 50, w % 10 == 9 ? 30 * MS : MS);
    }
    assertThat(policy.stats().limit()).isEqualTo(100);
    // Used, and slow for longer than a window, it shrinks.
    for (int w = 0; w < 20; w++) {
      fullWindow(policy, 30 * MS);
    }
    assertThat(policy.stats().limit()).isLessThan(100);
  }

  @Test
  void aBusierServersPausesDoNotRatchetItDownEither() {
    // 2,000 calls/s: the pause's window alone holds 60 calls in flight by Little's law, more than
    // half the limit, so it counts as use; one window of a pause must still not be overload.
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 600; w++) {
      window(policy, 2, 200, w % 10 == 9 ? 30 * MS : MS);
    }
    assertThat(policy.stats().limit()).isGreaterThanOrEqualTo(100);
  }

  @Test
  void aPartialHangStillShrinksTheLimit() {
    // Request-responses waiting on a failing dependency: 60 hang, the rest answer at 50 ms. The
    // answering concurrency (20 x 50 ms per 100 ms = 10) is below half the limit, but the calls in
    // flight are not: the limit is in play and the latency says overload.
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 10; w++) {
      window(policy, 0, 20, MS);
    }
    RequestStats stats = policy.requestStats();
    for (int i = 0; i < 60; i++) {
      stats.onStart(Kind.REQUEST_RESPONSE); // never answers
    }
    for (int w = 0; w < 30; w++) {
      window(policy, 60, 20, 50 * MS);
    }
    assertThat(policy.stats().limit()).isLessThan(100);
  }

  @Test
  void anUnusedLimitGrowsBackToItsInitialValueAndNoFurther() {
    AdaptiveLeasePolicy policy = builder().noLoadWindow(Duration.ofSeconds(2)).build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 10; w++) {
      fullWindow(policy, MS);
    }
    for (int w = 0; w < 15; w++) {
      fullWindow(policy, 10 * MS); // overloaded, and used: it shrinks
    }
    int low = policy.stats().limit();
    assertThat(low).isLessThan(100);
    for (int w = 0; w < 200; w++) {
      window(policy, 0, 20, MS); // idle again, at the no-load latency
    }
    assertThat(policy.stats().limit()).isEqualTo(100);
  }

  @Test
  void theLimitShrinksWhenLatencyRisesTenfoldDownToItsMinimum() {
    AdaptiveLeasePolicy policy = builder().minLimit(10).build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 10; w++) {
      fullWindow(policy, MS);
    }
    int peak = policy.stats().limit();
    List<Integer> limits = new ArrayList<>();
    for (int w = 0; w < 60; w++) {
      fullWindow(policy, 10 * MS);
      limits.add(policy.stats().limit());
    }
    // One window's mean moves the recent latency by at most double: a few windows, then down.
    assertThat(limits.get(4)).isLessThan(peak);
    assertThat(limits.subList(4, limits.size())).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
    assertThat(limits.get(10)).isLessThan(peak * 3 / 4);
    assertThat(limits.get(limits.size() - 1)).isEqualTo(10);
    assertThat(policy.stats().noLoadLatencyNanos()).isEqualTo(MS);
    assertThat(policy.stats().latencyNanos()).isGreaterThan(9 * MS);
  }

  @Test
  void aLastingSlowdownBecomesTheNewNoLoadLatency() {
    AdaptiveLeasePolicy policy = builder().noLoadWindow(Duration.ofSeconds(2)).build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 10; w++) {
      fullWindow(policy, MS);
    }
    for (int w = 0; w < 40; w++) {
      fullWindow(policy, 10 * MS); // 4 s of it: the average has settled for the last 2 s
    }
    assertThat(policy.stats().noLoadLatencyNanos()).isCloseTo(10 * MS, org.assertj.core.data.Percentage.withPercentage(1));
    int low = policy.stats().limit();
    for (int w = 0; w < 20; w++) {
      fullWindow(policy, 10 * MS);
    }
    assertThat(policy.stats().limit()).isGreaterThan(low);
  }

  @Test
  void steadyNoiseIsNotOverload() {
    // Window means alternating 1 ms and 4 ms, for ever: a noisy host, not a queue building up.
    // Against the lowest raw window (1 ms) the average (~2.5 ms) would look overloaded and the
    // limit would only shrink; against the lowest average it does not.
    AdaptiveLeasePolicy policy = builder().build();
    policy.attach(new FakeGrants(clock));
    List<Integer> limits = new ArrayList<>();
    for (int w = 0; w < 80; w++) {
      fullWindow(policy, w % 2 == 0 ? MS : 4 * MS);
      limits.add(policy.stats().limit());
    }
    assertThat(policy.stats().noLoadLatencyNanos()).isGreaterThan(3 * MS / 2);
    assertThat(limits).isSorted();
    assertThat(policy.stats().limit()).isGreaterThan(100);
    // A real rise from there still shrinks it.
    int before = policy.stats().limit();
    for (int w = 0; w < 5; w++) {
      fullWindow(policy, 40 * MS);
    }
    assertThat(policy.stats().limit()).isLessThan(before);
  }

  @Test
  void theLimitStaysWithinItsBounds() {
    AdaptiveLeasePolicy policy = builder().initialLimit(100).maxLimit(120).minLimit(90).build();
    policy.attach(new FakeGrants(clock));
    for (int w = 0; w < 100; w++) {
      fullWindow(policy, MS);
      assertThat(policy.stats().limit()).isBetween(90, 120);
    }
    assertThat(policy.stats().limit()).isEqualTo(120);
    int lowest = 120;
    for (int w = 0; w < 60; w++) { // less than the no-load window: 1 ms stays the no-load latency
      fullWindow(policy, 100 * MS);
      assertThat(policy.stats().limit()).isBetween(90, 120);
      lowest = Math.min(lowest, policy.stats().limit());
    }
    assertThat(lowest).isEqualTo(90);
    assertThat(policy.stats().limit()).isEqualTo(90);
  }

  @Test
  void aWindowWithTooFewSamplesStaysOpen() {
    AdaptiveLeasePolicy policy = builder().minSamples(10).build();
    policy.attach(new FakeGrants(clock));
    window(policy, 100, 9, 50 * MS);
    assertThat(policy.stats().latencyNanos()).isZero();
    window(policy, 100, 1, 50 * MS); // the tenth sample closes it
    assertThat(policy.stats().latencyNanos()).isEqualTo(50 * MS);
    assertThat(policy.stats().noLoadLatencyNanos()).isEqualTo(50 * MS); // the first window's
  }

  @Test
  void eachConnectionGetsAnEqualShareOfTheLimitPerTtlAtTheMeasuredLatency() {
    // A limit that cannot move: 50 calls in flight; 2 s ttl; 1 ms per call.
    AdaptiveLeasePolicy policy = builder().initialLimit(50).minLimit(50).maxLimit(50).build();
    FakeGrants a = new FakeGrants(clock);
    policy.attach(a);
    // Before any measurement the latency is taken as 1 ms.
    assertThat(a.last()).isEqualTo(new FakeGrants.Grant(Duration.ofSeconds(2), 50 * 2000, LeaseGrants.ALL_RANKS));
    fullWindow(policy, 2 * MS);
    assertThat(policy.stats().latencyNanos()).isEqualTo(2 * MS);
    assertThat(a.last().requests()).isEqualTo(50 * 1000); // moved by half: granted at once

    FakeGrants b = new FakeGrants(clock);
    policy.attach(b);
    assertThat(b.last().requests()).isEqualTo(50 * 1000 / 2);
    FakeGrants c = new FakeGrants(clock);
    policy.attach(c);
    int third = (50 * 1000 + 2) / 3; // rounded up
    assertThat(c.last().requests()).isEqualTo(third);
    assertThat(policy.stats().requestsPerConnection()).isEqualTo(third);
    assertThat(policy.stats().connections()).isEqualTo(3);

    // Within one tick every connection has its new share.
    int grantsOfA = a.grants.size();
    clock.advance(WINDOW);
    assertThat(a.grants).hasSize(grantsOfA + 1);
    assertThat(List.of(a.last(), b.last(), c.last()))
        .allSatisfy(g -> assertThat(g.requests()).isEqualTo(third));
  }

  @Test
  void grantsAreRenewedEveryHalfTtlAndNotMoreOftenWhileNothingMoves() {
    AdaptiveLeasePolicy policy =
        builder().ttl(Duration.ofSeconds(4)).initialLimit(50).minLimit(50).maxLimit(50).build();
    FakeGrants g = new FakeGrants(clock);
    policy.attach(g);
    assertThat(g.grants).hasSize(1);
    clock.advance(Duration.ofMillis(1999));
    assertThat(g.grants).hasSize(1);
    clock.advance(Duration.ofMillis(1));
    assertThat(g.grants).hasSize(2);
    clock.advance(Duration.ofSeconds(20));
    assertThat(g.grants).hasSize(12);
    assertThat(g.grants).allSatisfy(x -> assertThat(x.ttl()).isEqualTo(Duration.ofSeconds(4)));
  }

  @Test
  void aBusyConnectionAmongManyIdleOnesIsGrantedWhatItUses() {
    // A limit of 100 that cannot move, 10 ms per call: 100 * 2 s / 10 ms = 20,000 requests per ttl
    // for the server, 20 for each of 1000 connections if shared equally. One client sends all
    // its grant allows, the 999 others nothing, and the server has nothing in flight.
    AdaptiveLeasePolicy policy = builder().initialLimit(100).minLimit(100).maxLimit(100).build();
    FakeGrants.FakeScheduler loop = new FakeGrants.FakeScheduler(clock);
    List<FakeGrants> idle = new ArrayList<>();
    for (int i = 0; i < 999; i++) {
      FakeGrants g = new FakeGrants(loop);
      policy.attach(g);
      idle.add(g);
    }
    FakeGrants busy = new FakeGrants(loop);
    policy.attach(busy);
    window(policy, 0, 20, 10 * MS);
    assertThat(policy.stats().latencyNanos()).isEqualTo(10 * MS);
    clock.advance(WINDOW);
    assertThat(busy.last().requests()).isEqualTo(20);

    for (int tick = 0; tick < 20; tick++) {
      busy.spent = busy.last().requests(); // spends all of it before each tick
      clock.advance(WINDOW);
    }
    assertThat(busy.last().requests()).isGreaterThan(20_000 / 2);
    long granted = busy.last().requests();
    for (FakeGrants g : idle) {
      granted += g.last().requests();
    }
    assertThat(granted).as("all grants together").isLessThanOrEqualTo(20_000 + 1000);
    // An idle client that starts sending is given more at the next ticks.
    FakeGrants woken = idle.get(0);
    for (int tick = 0; tick < 5; tick++) {
      woken.spent = woken.last().requests();
      clock.advance(WINDOW);
    }
    assertThat(woken.last().requests()).isGreaterThan(20);
  }

  @Test
  void aShareIsAtLeastOneRequestSoNoConnectionStarves() {
    AdaptiveLeasePolicy policy = builder().initialLimit(10).minLimit(10).maxLimit(10).build();
    List<FakeGrants> all = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      FakeGrants g = new FakeGrants(clock);
      policy.attach(g);
      all.add(g);
    }
    // 1 s per call: 10 in flight carry 20 calls per 2 s ttl, for 50 connections.
    fullWindow(policy, 1000 * MS);
    assertThat(policy.stats().requestsPerConnection()).isEqualTo(1);
    clock.advance(WINDOW);
    assertThat(all).allSatisfy(g -> assertThat(g.last().requests()).isEqualTo(1));
  }

  @Test
  void handlersThatNeverAnswerHoldNoMoreThanTheLimit() {
    // Every call hangs: no latency ever arrives. Offered 500 calls per window for 20 windows,
    // the policy takes on no more than its limit (100) at once, and grants nothing more once
    // that many hang, so that clients go elsewhere instead of being refused one by one.
    AdaptiveLeasePolicy policy = builder().build();
    FakeGrants g = new FakeGrants(clock);
    ConnectionLease lease = policy.attach(g);
    RequestStats stats = policy.requestStats();
    int admitted = 0;
    for (int w = 0; w < 20; w++) {
      for (int i = 0; i < 500; i++) {
        if (admits(lease, 0)) {
          stats.onStart(Kind.REQUEST_RESPONSE);
          admitted++;
        }
      }
      clock.advance(WINDOW);
      assertThat(policy.stats().inFlight()).isLessThanOrEqualTo(policy.stats().limit());
    }
    assertThat(admitted).isEqualTo(100);
    assertThat(policy.stats().limit()).isEqualTo(100);
    assertThat(g.last().requests()).isZero();
    assertThat(policy.stats().requestsPerConnection()).isZero();

    // Half of them end: the server takes calls on again, and says so at the next tick.
    for (int i = 0; i < 50; i++) {
      stats.onEnd(Kind.REQUEST_RESPONSE, 10 * MS, Outcome.CANCELED);
    }
    assertThat(admits(lease, 0)).isTrue();
    clock.advance(WINDOW);
    assertThat(g.last().requests()).isPositive();
  }

  @Test
  void aPartialHangDoesNotRaiseTheLimit() {
    // Per window 100 calls: 90 answer in 1 ms, 10 hang. The quick answers keep the latency at its
    // no-load level, but the hanging calls are no sign that the server could carry more.
    AdaptiveLeasePolicy policy = builder().build();
    ConnectionLease lease = policy.attach(new FakeGrants(clock));
    RequestStats stats = policy.requestStats();
    for (int w = 0; w < 60; w++) {
      for (int i = 0; i < 100; i++) {
        if (!admits(lease, 0)) {
          continue;
        }
        stats.onStart(Kind.REQUEST_RESPONSE);
        if (i % 10 != 0) {
          stats.onFirstResponse(Kind.REQUEST_RESPONSE, MS);
          stats.onEnd(Kind.REQUEST_RESPONSE, MS, Outcome.COMPLETE);
        }
      }
      clock.advance(WINDOW);
      assertThat(policy.stats().limit()).as("window %d", w).isLessThanOrEqualTo(100);
      assertThat(policy.stats().inFlight()).isLessThanOrEqualTo(100);
    }
  }

  private static Message rank(int rank) {
    return TestMessages.utf8(Integer.toString(rank));
  }

  private static int rankOf(Message m) {
    return Integer.parseInt(m.dataUtf8());
  }

  private static boolean admits(ConnectionLease lease, int rank) {
    try (Message m = rank(rank)) {
      return lease.admit(m);
    }
  }

  @Test
  void asCallsInFlightNearTheLimitTheLowestPrioritiesAreRefusedFirst() {
    AdaptiveLeasePolicy policy =
        builder()
            .initialLimit(100).minLimit(100).maxLimit(100)
            .ranks(4, AdaptiveLeasePolicyTest::rankOf)
            .shedFrom(0.5)
            .build();
    FakeGrants g = new FakeGrants(clock);
    ConnectionLease lease = policy.attach(g);
    RequestStats stats = policy.requestStats();
    // 4 ranks from half the limit: rank 3 goes at 62.5 in flight, 2 at 75, 1 at 87.5.
    int[][] steps = {
      {0, LeaseGrants.ALL_RANKS}, {62, LeaseGrants.ALL_RANKS}, {63, 2}, {74, 2}, {75, 1},
      {87, 1}, {88, 0}, {99, 0}, {100, 0}, {150, 0}, {70, 2}, {10, LeaseGrants.ALL_RANKS}
    };
    for (int[] step : steps) {
      while (policy.stats().inFlight() < step[0]) {
        stats.onStart(Kind.REQUEST_RESPONSE);
      }
      while (policy.stats().inFlight() > step[0]) {
        stats.onEnd(Kind.REQUEST_RESPONSE, MS, Outcome.COMPLETE);
      }
      int max = step[1];
      assertThat(policy.stats().admittedMaxRank()).as("at %d in flight", step[0]).isEqualTo(max);
      for (int r = 0; r <= 5; r++) {
        // From the limit in flight on, nothing is admitted, rank 0 neither.
        boolean expected = step[0] < 100 && (r == 0 || Math.min(r, 3) <= max);
        assertThat(admits(lease, r)).as("rank %d at %d in flight", r, step[0]).isEqualTo(expected);
      }
      clock.advance(WINDOW); // the next tick tells the client
      assertThat(g.last().maxRank()).as("grant at %d in flight", step[0]).isEqualTo(max);
    }
  }

  @Test
  void rankZeroIsAdmittedBelowTheLimitAndAnUnreadableRankIsTheLowest() {
    AdaptiveLeasePolicy policy =
        builder()
            .initialLimit(10).minLimit(10).maxLimit(10)
            .ranks(3, m -> {
              throw new IllegalStateException("no rank in " + m.dataUtf8());
            })
            .build();
    ConnectionLease lease = policy.attach(new FakeGrants(clock));
    assertThat(admits(lease, 0)).isTrue(); // not shedding: even the unreadable one goes in
    for (int i = 0; i < 9; i++) {
      policy.requestStats().onStart(Kind.REQUEST_RESPONSE);
    }
    assertThat(policy.stats().admittedMaxRank()).isZero();
    assertThat(admits(lease, 0)).isFalse(); // its rank is unreadable: lowest

    AdaptiveLeasePolicy byData =
        builder().initialLimit(10).minLimit(10).maxLimit(10).ranks(3, AdaptiveLeasePolicyTest::rankOf).build();
    ConnectionLease l2 = byData.attach(new FakeGrants(clock));
    for (int i = 0; i < 9; i++) {
      byData.requestStats().onStart(Kind.REQUEST_RESPONSE);
    }
    assertThat(admits(l2, 0)).isTrue();
    assertThat(admits(l2, -5)).isTrue(); // below 0 counts as 0
    assertThat(admits(l2, 1)).isFalse();
    byData.requestStats().onStart(Kind.REQUEST_RESPONSE); // the limit, 10, in flight: none
    assertThat(admits(l2, 0)).isFalse();
  }

  @Test
  void withOneRankNothingIsShedAndTheRankIsNeverRead() {
    AdaptiveLeasePolicy policy = builder().initialLimit(10).minLimit(10).maxLimit(10).build();
    FakeGrants g = new FakeGrants(clock);
    ConnectionLease lease = policy.attach(g);
    for (int i = 0; i < 9; i++) {
      policy.requestStats().onStart(Kind.REQUEST_RESPONSE);
    }
    assertThat(policy.stats().admittedMaxRank()).isEqualTo(LeaseGrants.ALL_RANKS);
    assertThat(admits(lease, 7)).isTrue();
    clock.advance(WINDOW);
    assertThat(g.grants).allSatisfy(x -> assertThat(x.maxRank()).isEqualTo(LeaseGrants.ALL_RANKS));
  }

  @Test
  void closeForgetsTheConnectionAndCancelsItsTimer() {
    AdaptiveLeasePolicy policy = builder().initialLimit(50).minLimit(50).maxLimit(50).build();
    FakeGrants a = new FakeGrants(clock);
    FakeGrants b = new FakeGrants(clock);
    ConnectionLease la = policy.attach(a);
    policy.attach(b);
    assertThat(policy.stats().connections()).isEqualTo(2);
    assertThat(tickLoop.live()).isEqualTo(1);
    int shareOfTwo = b.last().requests();

    la.close();
    la.close(); // once is enough; a second close changes nothing
    assertThat(policy.stats().connections()).isEqualTo(1);
    assertThat(policy.tick().size()).isEqualTo(1);
    int grantsOfA = a.grants.size();
    clock.advance(Duration.ofSeconds(10));
    assertThat(a.grants).hasSize(grantsOfA);
    // The one left gets the whole limit at its next tick.
    assertThat(b.last().requests()).isEqualTo(shareOfTwo * 2);
  }

  @Test
  void aClosingConnectionIsGrantedNothingMore() {
    AdaptiveLeasePolicy policy = builder().build();
    FakeGrants g = new FakeGrants(clock);
    policy.attach(g);
    g.open = false;
    clock.advance(Duration.ofSeconds(10));
    assertThat(g.grants).hasSize(1);
  }

  @Test
  void statsFromManyThreadsAtOnceKeepCallsInFlightConsistent() throws Exception {
    AdaptiveLeasePolicy policy = builder().build();
    RequestStats stats = policy.requestStats();
    int threads = 4;
    int calls = 100_000;
    int leftOpen = 3;
    java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(threads + 1);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                try {
                  go.await();
                  for (int i = 0; i < calls; i++) {
                    stats.onStart(Kind.REQUEST_RESPONSE);
                    stats.onFirstResponse(Kind.REQUEST_RESPONSE, 1000 + i % 7);
                    stats.onEnd(Kind.REQUEST_RESPONSE, 1000, Outcome.COMPLETE);
                  }
                  for (int i = 0; i < leftOpen; i++) {
                    stats.onStart(Kind.REQUEST_STREAM);
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      w.start();
      workers.add(w);
    }
    go.await();
    long minSeen = Long.MAX_VALUE;
    while (workers.stream().anyMatch(Thread::isAlive)) {
      minSeen = Math.min(minSeen, policy.stats().inFlight());
      Thread.onSpinWait();
    }
    for (Thread w : workers) {
      w.join();
    }
    assertThat(failures).isEmpty();
    assertThat(minSeen).isGreaterThanOrEqualTo(0);
    assertThat(policy.stats().inFlight()).isEqualTo((long) threads * leftOpen);
    assertThat(policy.stats().started()).isEqualTo((long) threads * (calls + leftOpen));
    LoadMeter.Window w = ((LoadMeter) stats).drain();
    assertThat(w.count()).isEqualTo((long) threads * calls);
    assertThat(w.minNanos()).isEqualTo(1000);
  }

  @Test
  void onlyTheMeasuredKindsCountInFlightOrAsLatency() {
    AdaptiveLeasePolicy policy =
        builder().measure(java.util.EnumSet.of(Kind.REQUEST_RESPONSE)).minSamples(1).build();
    policy.attach(new FakeGrants(clock));
    RequestStats stats = policy.requestStats();
    for (int i = 0; i < 500; i++) {
      stats.onStart(Kind.REQUEST_STREAM); // a subscription that stays open: not load
    }
    stats.onFirstResponse(Kind.REQUEST_STREAM, 60_000 * MS); // its first event a minute later
    stats.onStart(Kind.FIRE_AND_FORGET);
    assertThat(policy.stats().inFlight()).isZero();
    assertThat(policy.stats().started()).isZero();
    stats.onStart(Kind.REQUEST_RESPONSE);
    stats.onFirstResponse(Kind.REQUEST_RESPONSE, 2 * MS);
    assertThat(policy.stats().inFlight()).isEqualTo(1);
    clock.advance(WINDOW);
    assertThat(policy.stats().latencyNanos()).isEqualTo(2 * MS);
    stats.onEnd(Kind.REQUEST_STREAM, MS, Outcome.CANCELED);
    stats.onEnd(Kind.REQUEST_RESPONSE, 2 * MS, Outcome.COMPLETE);
    assertThat(policy.stats().inFlight()).isZero();
    assertThat(policy.toString()).contains("measured=[REQUEST_RESPONSE]");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().measure(java.util.EnumSet.noneOf(Kind.class)))
        .hasMessageContaining("at least one kind");
  }

  @Test
  void rejectionsAreCounted() {
    AdaptiveLeasePolicy policy = builder().build();
    policy.requestStats().onRejected(Kind.REQUEST_RESPONSE);
    policy.requestStats().onRejected(Kind.FIRE_AND_FORGET);
    assertThat(policy.stats().rejected()).isEqualTo(2);
    assertThat(policy.stats().toString()).contains("rejected=2").contains("limit=100");
  }

  @Test
  void badSettingsAreRefusedWithTheirName() {
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().ttl(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().minLimit(0))
        .hasMessageContaining("minLimit must be at least 1");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().initialLimit(5).minLimit(10).build())
        .hasMessageContaining("minLimit <= initialLimit <= maxLimit");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().tolerance(0.9))
        .hasMessageContaining("tolerance");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().smoothing(0))
        .hasMessageContaining("smoothing");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().shedFrom(1))
        .hasMessageContaining("shedFrom");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().ranks(0, m -> 0))
        .hasMessageContaining("ranks");
    assertThatThrownBy(() -> AdaptiveLeasePolicy.builder().sampleWindow(Duration.ofNanos(10)))
        .hasMessageContaining("sampleWindow");
  }
}
