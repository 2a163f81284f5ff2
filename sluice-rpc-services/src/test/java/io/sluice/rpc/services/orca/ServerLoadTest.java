package io.sluice.rpc.services.orca;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lease.adaptive.LeaseStats;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** ServerLoad.of(LeaseStats): utilization is in flight over the limit, rps a per-second rate. */
class ServerLoadTest {
  /** Stats a test moves by hand. */
  private static final class Stats implements LeaseStats {
    int limit = 100;
    long inFlight;
    long started;

    @Override public int limit() { return limit; }
    @Override public long inFlight() { return inFlight; }
    @Override public long latencyNanos() { return 0; }
    @Override public long noLoadLatencyNanos() { return 0; }
    @Override public int admittedMaxRank() { return 0; }
    @Override public int connections() { return 1; }
    @Override public int requestsPerConnection() { return 0; }
    @Override public long started() { return started; }
    @Override public long rejected() { return 0; }
  }

  @Test
  void leaseFiguresBecomeUtilizationRpsAndCallsInFlight() {
    Stats stats = new Stats();
    AtomicLong now = new AtomicLong(1_000_000_000L);
    stats.started = 500;
    ServerLoad load = new ServerLoad.LeaseLoad(stats, now::get);

    stats.inFlight = 25;
    assertThat(load.utilization()).isEqualTo(0.25);
    assertThat(load.callsInFlight()).isEqualTo(25);
    assertThat(load.rps()).as("no second measured yet").isZero();

    stats.started = 800;
    now.addAndGet(2_000_000_000L);
    assertThat(load.rps()).isEqualTo(150.0);
    stats.started = 900;
    now.addAndGet(500_000_000L);
    assertThat(load.rps()).as("kept until a second has passed").isEqualTo(150.0);
    now.addAndGet(500_000_000L);
    assertThat(load.rps()).isEqualTo(100.0);

    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    ServerLoad.writeTo(load, b);
    assertThat(b.getApplicationUtilization()).isEqualTo(0.25);
    assertThat(b.getRpsFractional()).isEqualTo(100.0);
    assertThat(b.getNamedMetricsMap()).isEqualTo(Map.of(ServerLoad.CALLS_IN_FLIGHT, 25.0));

    stats.limit = 0;
    assertThat(load.utilization()).isZero();
  }

  @Test
  void noneWritesNothing() {
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    ServerLoad.writeTo(ServerLoad.NONE, b);
    assertThat(b.build()).isEqualTo(OrcaLoadReport.getDefaultInstance());
  }
}
