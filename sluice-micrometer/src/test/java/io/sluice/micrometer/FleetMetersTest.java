package io.sluice.micrometer;

import static io.sluice.micrometer.Exchanges.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.balancer.AddressSource;
import io.sluice.balancer.Balancer;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.lease.adaptive.LeaseStats;
import io.sluice.transport.local.LocalTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code sluice.lease.*} read from a policy's stats, {@code sluice.balancer.*} from a balancer. */
class FleetMetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceMetrics metrics = SluiceMetrics.of(registry);

  /** Stats whose figures the test sets. */
  static final class Figures implements LeaseStats {
    volatile int limit = 40;
    volatile long inFlight = 7;
    volatile long rejected = 3;

    @Override
    public int limit() {
      return limit;
    }

    @Override
    public long inFlight() {
      return inFlight;
    }

    @Override
    public long latencyNanos() {
      return 2_000_000;
    }

    @Override
    public long noLoadLatencyNanos() {
      return 1_000_000;
    }

    @Override
    public int admittedMaxRank() {
      return 5;
    }

    @Override
    public int connections() {
      return 2;
    }

    @Override
    public int requestsPerConnection() {
      return 20;
    }

    @Override
    public long started() {
      return 100;
    }

    @Override
    public long rejected() {
      return rejected;
    }
  }

  @Test
  void leaseMetersReadThePolicysFiguresWhenScraped() {
    Figures f = new Figures();
    LeaseMeters.bind(metrics, f);
    String[] t = {"transport", "any", "side", "server"};
    assertThat(value(registry, "sluice.lease.limit", t)).isEqualTo(40);
    assertThat(value(registry, "sluice.lease.in_flight", t)).isEqualTo(7);
    assertThat(value(registry, "sluice.lease.rejections", t)).isEqualTo(3);
    assertThat(value(registry, "sluice.lease.latency", t)).isEqualTo(0.002);
    f.limit = 12;
    f.rejected = 9;
    assertThat(value(registry, "sluice.lease.limit", t)).isEqualTo(12);
    assertThat(value(registry, "sluice.lease.rejections", t)).isEqualTo(9);
  }

  @Test
  void balancerMetersCountPicksPerCallAndSeeItsServers() throws Exception {
    List<SluiceServer> servers = new ArrayList<>();
    Map<SocketAddress, String> names = new HashMap<>();
    for (int i = 0; i < 2; i++) {
      String name = "fleet-" + UUID.randomUUID();
      SluiceServer s =
          Connections.start(LocalTransport.server(name), ConnectionOptions.defaults(), (setup, r) -> Exchanges.echo())
              .get(60, TimeUnit.SECONDS);
      servers.add(s);
      names.put(s.address(), name);
    }
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(servers.get(0).address(), servers.get(1).address()))
            .connector(
                a -> Connections.connect(
                    LocalTransport.client(names.get(a)), ConnectionOptions.defaults(), ClientSetup.defaults(),
                    r -> new io.sluice.Responder() {}))
            .backoff(Duration.ofMillis(10), Duration.ofMillis(200))
            .build();
    try {
      BalancerMeters.bind(metrics, balancer, "test");
      String[] t = {"balancer", "test", "side", "client"};
      assertThat(Exchanges.await(() -> value(registry, "sluice.balancer.servers", t), 2)).isEqualTo(2);
      for (int i = 0; i < 6; i++) {
        assertThat(Exchanges.call(balancer, "q" + i)).isEqualTo("q" + i);
      }
      assertThat(value(registry, "sluice.balancer.picks", t)).isEqualTo(6);
      assertThat(value(registry, "sluice.balancer.retries", t)).isZero();
      assertThat(value(registry, "sluice.balancer.ejections", t)).isZero();
      assertThat(value(registry, "sluice.balancer.pending", t)).isZero();
      assertThat(value(registry, "sluice.balancer.availability", t)).isPositive();
    } finally {
      balancer.dispose();
      for (SluiceServer s : servers) {
        s.close();
      }
    }
  }
}
