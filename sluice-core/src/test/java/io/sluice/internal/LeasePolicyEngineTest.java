package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.internal.LeaseTestKit.Holding;
import io.sluice.internal.LeaseTestKit.TestPolicy;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.lease.LeaseGrants;
import io.sluice.test.ManualClockLoop;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The granting side of leasing: a server's {@link io.sluice.lease.LeasePolicy} decides the LEASE
 * frames and may refuse a covered request; the engine enforces the count and the expiry. On a
 * hand-moved clock.
 */
class LeasePolicyEngineTest extends EngineTestBase {
  private final TestPolicy policy = new TestPolicy();
  private final Holding responder = new Holding();

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  /** A server with {@link #policy} that accepted a SETUP asking for leasing; its first LEASE. */
  private Wire.Sent leasingServer() {
    server(opts().leasePolicy(policy).build(), responder);
    transport.inject(Wire.setupWithLease());
    return transport.next(FrameType.LEASE);
  }

  private void assertRejected(int streamId, String message) {
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(streamId);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("REJECTED");
    assertThat(e.errorMessage()).isEqualTo(message);
  }

  @Test
  void thePolicyIsAttachedAtSetupAndItsFirstGrantGoesOutWithoutMetadata() {
    Wire.Sent lease = leasingServer();
    assertThat(policy.attached).hasValue(1);
    assertThat(lease.keepAlive()).as("ttl").isEqualTo(10_000);
    assertThat(lease.requestN()).isEqualTo(5);
    assertThat(lease.has(Frames.FLAG_METADATA)).isFalse();
    assertThat(lease.metadata()).isNull();
    assertThat(policy.grants.remaining()).isEqualTo(5);
    assertThat(policy.grants.isOpen()).isTrue();
    assertThat(policy.grants.scheduler()).isSameAs(loop);
  }

  @Test
  void aGrantFromAnotherThreadGoesOutWithItsMaxRankAsFourBytesOfMetadata() {
    leasingServer();
    assertThat(loop.inEventLoop()).isFalse();
    policy.grants.grant(Duration.ofSeconds(3), 7, 2);
    Wire.Sent lease = transport.next(FrameType.LEASE);
    assertThat(lease.keepAlive()).isEqualTo(3_000);
    assertThat(lease.requestN()).isEqualTo(7);
    assertThat(lease.has(Frames.FLAG_METADATA)).isTrue();
    assertThat(lease.metadata()).containsExactly(0, 0, 0, 2);
    policy.grants.grant(Duration.ofSeconds(3), 7, 0x01020304);
    assertThat(transport.next(FrameType.LEASE).metadata()).containsExactly(1, 2, 3, 4);
  }

  @Test
  void aGrantReplacesThePreviousCountAndExpiry() {
    leasingServer(); // 5 requests for 10 s
    transport.inject(Wire.requestResponse(1, null, "a"), Wire.requestResponse(3, null, "b"));
    responder.take();
    responder.take();
    assertThat(policy.grants.remaining()).isEqualTo(3);

    Loop.run(loop, () -> policy.grants.grant(Duration.ofSeconds(1), 1, LeaseGrants.ALL_RANKS));
    transport.next(FrameType.LEASE);
    assertThat(policy.grants.remaining()).as("replaced, not added").isEqualTo(1);
    transport.inject(Wire.requestResponse(5, null, "c"), Wire.requestResponse(7, null, "d"));
    responder.take();
    assertRejected(7, "no lease");

    Loop.run(loop, () -> policy.grants.grant(Duration.ofSeconds(1), 3, LeaseGrants.ALL_RANKS));
    transport.next(FrameType.LEASE);
    clock().advance(1_001, TimeUnit.MILLISECONDS);
    assertThat(policy.grants.remaining()).as("expired").isZero();
    transport.inject(Wire.requestResponse(9, null, "late"));
    assertRejected(9, "no lease");
    assertThat(responder.seen).containsExactly("rr:a", "rr:b", "rr:c");
  }

  @Test
  void aRequestThePolicyRefusesIsRejectedAndNeverReachesTheResponder() {
    leasingServer();
    policy.admit = m -> !m.dataUtf8().startsWith("no");
    transport.inject(
        Wire.requestResponse(1, null, "no-rr"),
        Wire.requestStream(3, 1, "no-rs"),
        Wire.requestChannel(5, 1, "no-rc", false),
        Wire.fireAndForget(7, null, "no-fnf"),
        Wire.requestResponse(9, null, "yes"));
    for (int id : new int[] {1, 3, 5}) {
      assertRejected(id, "refused by the lease policy");
    }
    responder.take();
    assertThat(responder.seen).containsExactly("rr:yes");
    assertThat(policy.asked).containsExactly("no-rr", "no-rs", "no-rc", "no-fnf", "yes");
    assertThat(Loop.call(loop, conn::activeStreams)).as("only the admitted one").isEqualTo(1);
    transport.assertNothingSent(); // a fire-and-forget has no stream to reject on
  }

  @Test
  void thePolicyIsAskedOnceAFragmentedRequestIsComplete() {
    leasingServer();
    policy.admit = m -> false;
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_STREAM, Frames.FLAG_FOLLOWS, 2, null, Wire.b("he")));
    transport.assertNothingSent();
    assertThat(policy.asked).isEmpty();
    transport.inject(Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.b("llo")));
    assertRejected(1, "refused by the lease policy");
    assertThat(policy.asked).containsExactly("hello");
    assertThat(responder.seen).isEmpty();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    assertThat(Loop.call(loop, conn::reassemblyBytes)).isZero();
  }

  @Test
  void aPolicyThatThrowsRefusesTheRequest() {
    leasingServer();
    policy.admit =
        m -> {
          throw new IllegalStateException("policy bug");
        };
    transport.inject(Wire.requestResponse(1, null, "q"));
    assertRejected(1, "refused by the lease policy");
    assertThat(responder.seen).isEmpty();
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void theConnectionLeaseIsClosedOnceWithTheConnectionAndLaterGrantsAreIgnored() {
    leasingServer();
    conn.dispose();
    transport.awaitClosed();
    Loop.awaitOutcome(conn.onClose());
    assertThat(policy.closed).hasValue(1);
    assertThat(policy.grants.isOpen()).isFalse();
    policy.grants.grant(Duration.ofSeconds(1), 1, LeaseGrants.ALL_RANKS);
    Loop.run(loop, () -> policy.grants.grant(Duration.ofSeconds(1), 1, LeaseGrants.ALL_RANKS));
    Loop.settle(loop);
    assertThat(transport.drain()).noneMatch(s -> s.type() == FrameType.LEASE);
    assertThat(policy.closed).hasValue(1);
  }

  @Test
  void grantArgumentsAreChecked() {
    leasingServer();
    LeaseGrants g = policy.grants;
    assertThatThrownBy(() -> g.grant(Duration.ZERO, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease ttl");
    assertThatThrownBy(() -> g.grant(Duration.ofNanos(999_999), 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> g.grant(Duration.ofMillis(-1), 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> g.grant(Duration.ofMillis(Integer.MAX_VALUE + 1L), 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> g.grant(Duration.ofDays(Long.MAX_VALUE / 86_400 / 2), 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> g.grant(Duration.ofSeconds(1), -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requests");
    assertThatThrownBy(() -> g.grant(Duration.ofSeconds(1), 1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRank");
    assertThatThrownBy(() -> g.grant(null, 1, 0)).isInstanceOf(NullPointerException.class);
    Loop.settle(loop);
    transport.assertNothingSent();
    g.grant(Duration.ofMillis(Integer.MAX_VALUE), 0, 0);
    assertThat(transport.next(FrameType.LEASE).keepAlive()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void withoutAPolicyTheFixedGrantOfTheOptionsIsSentAndRenewedEveryHalfTtl() {
    server(opts().lease(true).leaseGrant(5_000, 7).build(), responder);
    transport.inject(Wire.setupWithLease());
    Wire.Sent first = transport.next(FrameType.LEASE);
    assertThat(first.keepAlive()).isEqualTo(5_000);
    assertThat(first.requestN()).isEqualTo(7);
    transport.assertNothingSent();
    clock().advance(2_500, TimeUnit.MILLISECONDS);
    Wire.Sent renewed = transport.next(FrameType.LEASE);
    assertThat(renewed.requestN()).isEqualTo(7);
    assertThat(renewed.metadata()).isNull();
  }

  @Test
  void aClientThatAsksForNoLeaseIsNeitherLeasedNorAskedAbout() {
    server(opts().leasePolicy(policy).build(), responder);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestResponse(1, null, "free"));
    responder.take();
    assertThat(policy.attached).hasValue(0);
    assertThat(policy.asked).isEmpty();
    transport.assertNothingSent();
  }

  @Test
  void aPolicyWhoseAttachThrowsClosesTheConnectionWithAClearError() {
    policy.onAttach =
        g -> {
          throw new IllegalStateException("cannot attach");
        };
    server(opts().leasePolicy(policy).build(), responder);
    transport.inject(Wire.setupWithLease());
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CONNECTION_ERROR");
    assertThat(e.errorMessage()).contains("lease policy").contains("cannot attach");
    transport.awaitClosed();
  }
}
