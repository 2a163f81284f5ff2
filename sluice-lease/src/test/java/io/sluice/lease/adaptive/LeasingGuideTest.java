package io.sluice.lease.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.RequestStats;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.rpc.rsocket.RpcRequests;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/guide/leasing.md (GuideSnippetsTest in sluice-examples compares the page with
 * the tagged regions), run here so that it does what the page says.
 */
class LeasingGuideTest {

  /** A stand-in for how a service reads a request's rank (RPC: the call metadata's rank). */
  static final ToIntFunction<Message> RANK_FROM_DATA = m -> m.data().readableBytes() > 0 ? m.data().getByte(0) - '0' : 0;

  static ConnectionOptions serverOptions() {
    // tag::adaptive[]
    AdaptiveLeasePolicy policy =
        AdaptiveLeasePolicy.builder()
            .ttl(Duration.ofSeconds(2))        // each grant lasts 2 s, renewed every 1 s
            .minLimit(10)                      // the server-wide limit stays in [10, 2000]
            .maxLimit(2000)
            .ranks(4, RANK_FROM_DATA)          // ranks 0 (highest) to 3 (shed first)
            .build();
    ConnectionOptions options = ConnectionOptions.builder().leasePolicy(policy).build();
    // end::adaptive[]
    return options;
  }

  @Test
  void theAdaptivePolicyIsTheServersPolicy() {
    ConnectionOptions options = serverOptions();
    assertThat(options.leasePolicy()).isInstanceOf(AdaptiveLeasePolicy.class);
    assertThat(options.lease()).isTrue();
    assertThat(options.leasePolicy().requestStats()).isNotNull();
  }

  static AdaptiveLeasePolicy rpcPolicy() {
    // tag::rpc-ranks[]
    AdaptiveLeasePolicy policy =
        AdaptiveLeasePolicy.builder()
            .ranks(4, RpcRequests::rank)       // each call's rank method option; 0 when none
            .build();
    // end::rpc-ranks[]
    return policy;
  }

  @Test
  void rpcCallsAreShedByTheirRankOption() {
    AdaptiveLeasePolicy policy = rpcPolicy();
    FakeGrants.Clock clock = new FakeGrants.Clock();
    ConnectionLease lease = policy.attach(new FakeGrants(clock));
    for (int i = 0; i < 90; i++) { // 90 of the default limit (100) in flight: only rank 0 goes in
      policy.requestStats().onStart(RequestStats.Kind.REQUEST_RESPONSE);
    }
    for (int rank = 0; rank < 4; rank++) {
      CallMetadata call = CallMetadata.of("demo.Greeter", "Hello", Headers.EMPTY, CallMetadata.NO_TIMEOUT, false, rank);
      try (Message m =
          Message.of(
              CallMetadataCodec.encode(UnpooledByteBufAllocator.DEFAULT, call),
              Unpooled.EMPTY_BUFFER)) {
        assertThat(lease.admit(m)).as("rank %d", rank).isEqualTo(rank == 0);
      }
    }
    lease.close();
  }

  static String metricsLine(AdaptiveLeasePolicy policy) {
    // tag::stats[]
    LeaseStats s = policy.stats();
    String line =
        "limit=" + s.limit() + " inFlight=" + s.inFlight() + " latencyUs=" + s.latencyNanos() / 1000
            + " maxRank=" + s.admittedMaxRank() + " connections=" + s.connections();
    // end::stats[]
    return line;
  }

  @Test
  void statsReadTheLiveFigures() {
    AdaptiveLeasePolicy policy = AdaptiveLeasePolicy.withDefaults();
    assertThat(metricsLine(policy))
        .isEqualTo("limit=100 inFlight=0 latencyUs=0 maxRank=" + LeaseGrants.ALL_RANKS + " connections=0");
  }

  // tag::custom[]
  /** Grants every connection what an outside source says it may have, renewed every second. */
  static final class CapacityPolicy implements LeasePolicy {
    private final IntSupplier capacity;

    CapacityPolicy(IntSupplier capacity) {
      this.capacity = capacity;
    }

    @Override
    public ConnectionLease attach(LeaseGrants grants) {
      Runnable grant =
          () -> grants.grant(Duration.ofSeconds(2), capacity.getAsInt(), LeaseGrants.ALL_RANKS);
      grant.run(); // at once: the client sends nothing before its first grant
      ScheduledFuture<?> renew =
          grants.scheduler().scheduleAtFixedRate(grant, 1, 1, TimeUnit.SECONDS);
      return () -> renew.cancel(false); // ConnectionLease.close(): the connection is gone
    }
  }
  // end::custom[]

  @Test
  void theCustomPolicyGrantsAtOnceRenewsAndStopsOnClose() {
    FakeGrants.Clock clock = new FakeGrants.Clock();
    FakeGrants g = new FakeGrants(clock);
    int[] capacity = {7};
    ConnectionLease lease = new CapacityPolicy(() -> capacity[0]).attach(g);
    assertThat(g.grants).containsExactly(new FakeGrants.Grant(Duration.ofSeconds(2), 7, LeaseGrants.ALL_RANKS));
    capacity[0] = 3;
    clock.advance(Duration.ofSeconds(1));
    assertThat(g.last().requests()).isEqualTo(3);
    try (Message m = io.sluice.test.TestMessages.utf8("9")) {
      assertThat(lease.admit(m)).isTrue(); // the default admit: the lease alone decides
    }
    lease.close();
    clock.advance(Duration.ofSeconds(5));
    assertThat(g.grants).hasSize(2);
    assertThat(g.scheduler.live()).isZero();
  }
}
