package io.sluice.lease.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lease.ConnectionLease;
import io.sluice.lease.RequestStats.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link AdaptiveLeasePolicy}'s one timer ({@link LeaseTick}) on a clock the test moves: one
 * timer and one look at the limit per tick whatever the number of connections, one task per event
 * loop for a tick's grants, a closed connection no longer visited, the timer moving with its
 * phase when its host closes and gone after the last one.
 */
class AdaptiveLeasePolicyTickTest {
  private static final Duration TICK = Duration.ofMillis(100); // the default sample window

  private final FakeGrants.Clock clock = new FakeGrants.Clock();
  private final AtomicLong clockReads = new AtomicLong();
  /** Where the tick runs: a thread of its own in a server, a scheduler on the clock here. */
  private final FakeGrants.FakeScheduler tickLoop = new FakeGrants.FakeScheduler(clock);

  /** A limit that cannot move, 2 s ttl (renewed every 1 s), a tick every 100 ms. */
  private AdaptiveLeasePolicy.Builder fixed() {
    return AdaptiveLeasePolicy.builder()
        .ticker(() -> {
          clockReads.incrementAndGet();
          return clock.now();
        })
        .tickScheduler(tickLoop)
        .initialLimit(50).minLimit(50).maxLimit(50);
  }

  @Test
  void aTickThatStartsLateDoesNotPushTheNextRenewalToTheLeasesEnd() {
    // A 200 ms ttl with a tick every 100 ms: the tick period is the renewal period.
    AdaptiveLeasePolicy policy = fixed().ttl(Duration.ofMillis(200)).sampleWindow(TICK).build();
    LeasedConnection c = (LeasedConnection) policy.attach(new FakeGrants(clock));
    long t0 = clock.now(); // the first grant's date
    int requests = policy.requestsPerConnection();
    int rank = policy.admittedMaxRank();
    long ms = 1_000_000L;

    assertThat(c.due(t0 + 110 * ms, requests, rank)).as("a tick 10 ms late renews").isTrue();
    // The next tick comes on time, 90 ms after that grant: it must renew too; otherwise the one
    // after (300 ms) would, 190 ms after the last grant, 10 ms before its 200 ms lease ends.
    assertThat(c.due(t0 + 200 * ms, requests, rank)).as("the next tick, on time").isTrue();
  }

  @Test
  void oneTimerAndOneLookAtTheLimitPerTickWhateverTheNumberOfConnections() {
    AdaptiveLeasePolicy policy = fixed().build();
    List<FakeGrants> all = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      FakeGrants g = new FakeGrants(clock); // each on its own event loop
      policy.attach(g);
      all.add(g);
    }
    assertThat(clock.liveTimers()).isEqualTo(1);
    assertThat(policy.tick().size()).isEqualTo(100);

    clockReads.set(0);
    clock.advance(Duration.ofSeconds(1)); // 10 ticks
    // The tick reads the clock once and moves the limit once; a timer per connection read it
    // (and worked the limit, the share and the admitted rank out) 100 times per tick.
    assertThat(clockReads.get()).isEqualTo(10);
    // And every connection was looked at: all are renewed within the half ttl.
    assertThat(all).allSatisfy(g -> assertThat(g.grants).hasSizeGreaterThanOrEqualTo(2));
    assertThat(clock.liveTimers()).isEqualTo(1);
  }

  @Test
  void aTicksGrantsGoAsOneTaskPerEventLoop() {
    AdaptiveLeasePolicy policy =
        fixed().ranks(2, m -> 1).shedFrom(0.5).build(); // rank 1 shed from 75% of 50 in flight
    FakeGrants.FakeScheduler x = new FakeGrants.FakeScheduler(clock);
    FakeGrants.FakeScheduler y = new FakeGrants.FakeScheduler(clock);
    List<FakeGrants> all = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      FakeGrants g = new FakeGrants(i < 10 ? x : y);
      policy.attach(g);
      all.add(g);
    }
    clock.advance(Duration.ofSeconds(3)); // shares settled, renewed
    int executedOnX = x.executed;
    int executedOnY = y.executed;
    List<Integer> before = all.stream().map(g -> g.grants.size()).toList();

    for (int i = 0; i < 40; i++) {
      policy.requestStats().onStart(Kind.REQUEST_RESPONSE); // 40 of 50 in flight: rank 1 shed
    }
    clock.advance(TICK); // one tick: every connection is due (the admitted rank changed)

    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).grants).hasSize(before.get(i) + 1);
      assertThat(all.get(i).last().maxRank()).isZero();
    }
    assertThat(x.executed - executedOnX).isEqualTo(1); // 10 grants, one hand-off
    assertThat(y.executed - executedOnY).isEqualTo(1); // 5 grants, one hand-off
  }

  @Test
  void aClosedConnectionIsNoLongerVisited() {
    AdaptiveLeasePolicy policy = fixed().build();
    FakeGrants a = new FakeGrants(clock);
    FakeGrants b = new FakeGrants(clock);
    FakeGrants c = new FakeGrants(clock);
    policy.attach(a);
    ConnectionLease lb = policy.attach(b);
    policy.attach(c);
    assertThat(policy.tick().size()).isEqualTo(3);

    lb.close();
    assertThat(policy.tick().size()).isEqualTo(2);
    assertThat(policy.stats().connections()).isEqualTo(2);
    int grantsOfB = b.grants.size();
    int grantsOfC = c.grants.size();
    clock.advance(Duration.ofSeconds(5));
    assertThat(b.grants).hasSize(grantsOfB);
    assertThat(c.grants.size()).isGreaterThanOrEqualTo(grantsOfC + 5); // renewed every second
  }

  @Test
  void noTimerRemainsAfterTheLastConnectionClosesAndTheNextOneStartsItAgain() {
    AdaptiveLeasePolicy policy = fixed().build();
    List<FakeGrants> all = new ArrayList<>();
    List<ConnectionLease> leases = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      FakeGrants g = new FakeGrants(clock);
      leases.add(policy.attach(g));
      all.add(g);
    }
    clock.advance(Duration.ofMillis(250));
    for (ConnectionLease l : leases) { // the host (the first) first: the timer moves, then stops
      l.close();
      assertThat(clock.liveTimers()).isEqualTo(l == leases.get(leases.size() - 1) ? 0 : 1);
    }
    assertThat(policy.tick().running()).isFalse();
    assertThat(policy.tick().size()).isZero();
    assertThat(policy.stats().connections()).isZero();
    List<Integer> grants = all.stream().map(g -> g.grants.size()).toList();
    clock.advance(Duration.ofSeconds(10));
    assertThat(all.stream().map(g -> g.grants.size()).toList()).isEqualTo(grants);

    FakeGrants again = new FakeGrants(clock);
    policy.attach(again);
    assertThat(again.grants).hasSize(1); // at once
    assertThat(tickLoop.live()).isEqualTo(1);
    assertThat(again.scheduler.live()).isZero(); // never on a connection's loop
    clock.advance(Duration.ofSeconds(1));
    assertThat(again.grants).hasSize(2);
  }

  @Test
  void whenTheFirstConnectionClosesTheTimerKeepsItsPhase() {
    AdaptiveLeasePolicy policy = fixed().build();
    FakeGrants a = new FakeGrants(clock);
    FakeGrants b = new FakeGrants(clock);
    ConnectionLease la = policy.attach(a); // the tick runs every 100 ms from here
    clock.advance(Duration.ofMillis(150));
    policy.attach(b); // half a tick later
    int shareOfTwo = b.last().requests();
    clock.advance(Duration.ofMillis(100)); // a tick at 200 ms

    la.close(); // at 250 ms
    assertThat(a.scheduler.live()).isZero();
    assertThat(b.scheduler.live()).isZero();
    assertThat(tickLoop.live()).isEqualTo(1);
    // b's share doubled, and b hears of it at the next tick (300 ms).
    clock.advance(Duration.ofMillis(49));
    assertThat(b.last().requests()).isEqualTo(shareOfTwo);
    clock.advance(Duration.ofMillis(1));
    assertThat(b.last().requests()).isEqualTo(shareOfTwo * 2);
  }

  @Test
  void aConnectionThatJoinsBetweenTicksIsRenewedWithinHalfItsTtl() {
    AdaptiveLeasePolicy policy = fixed().build();
    policy.attach(new FakeGrants(clock));
    clock.advance(Duration.ofMillis(150));
    FakeGrants late = new FakeGrants(clock);
    policy.attach(late); // between the ticks of 100 and 200 ms
    clock.advance(Duration.ofMillis(999)); // 1,149 ms
    assertThat(late.grants).hasSizeLessThanOrEqualTo(2);
    clock.advance(Duration.ofMillis(1)); // 1,150 ms: half its ttl after its first grant
    assertThat(late.grants).hasSize(2);
  }

  @Test
  void aLoopThatShutDownIsPassedOver() {
    AdaptiveLeasePolicy policy = fixed().build();
    FakeGrants a = new FakeGrants(clock);
    FakeGrants b = new FakeGrants(clock);
    FakeGrants c = new FakeGrants(clock);
    ConnectionLease la = policy.attach(a);
    policy.attach(b);
    policy.attach(c);
    b.scheduler.shutDown = true; // b's loop is gone; its connection has not closed yet

    la.close();
    assertThat(clock.liveTimers()).isEqualTo(1);
    int grantsOfB = b.grants.size();
    int grantsOfC = c.grants.size();
    clock.advance(Duration.ofSeconds(2)); // b's grants are refused by its loop; the tick goes on
    assertThat(b.grants).hasSize(grantsOfB);
    assertThat(c.grants.size()).isGreaterThanOrEqualTo(grantsOfC + 2);
  }

  @Test
  void aBlockedEventLoopDelaysOnlyTheRenewalsOfItsOwnConnections() {
    AdaptiveLeasePolicy policy = fixed().build();
    FakeGrants.FakeScheduler x = new FakeGrants.FakeScheduler(clock);
    FakeGrants.FakeScheduler y = new FakeGrants.FakeScheduler(clock);
    FakeGrants a = new FakeGrants(x); // the first connection
    FakeGrants b = new FakeGrants(y);
    policy.attach(a);
    policy.attach(b);

    x.blocked = true; // a handler blocks a's event loop
    clock.advance(Duration.ofSeconds(3));
    assertThat(b.grants).as("b, on a loop that runs").hasSizeGreaterThanOrEqualTo(4); // every 1 s
    assertThat(a.grants).as("a, on the blocked loop").hasSize(1);

    x.unblock(); // the grants made for it meanwhile reach it when its loop runs again
    assertThat(a.grants.size()).isGreaterThan(1);
    clock.advance(Duration.ofSeconds(2));
    assertThat(a.grants.size()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void aGrantThatThrowsStopsNeitherTheTickNorTheOtherGrants() {
    AdaptiveLeasePolicy policy = fixed().build();
    FakeGrants.FakeScheduler loop = new FakeGrants.FakeScheduler(clock);
    FakeGrants bad = new FakeGrants(loop);
    FakeGrants good = new FakeGrants(loop);
    policy.attach(bad);
    policy.attach(good);
    bad.failing = true;
    clock.advance(Duration.ofSeconds(3)); // would throw out of here if the tick let it through
    assertThat(good.grants.size()).isGreaterThanOrEqualTo(4); // at once, then every second
    assertThat(clock.liveTimers()).isEqualTo(1);
  }
}
