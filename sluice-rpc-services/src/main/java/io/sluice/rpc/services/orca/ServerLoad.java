package io.sluice.rpc.services.orca;

import io.sluice.lease.adaptive.LeaseStats;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the server measures of its own load, as ORCA reports carry it without any code in the
 * handlers: {@link #utilization()} as {@code application_utilization} (which gRPC's weighted round
 * robin prefers over CPU), {@link #rps()} as {@code rps_fractional}, and {@link #callsInFlight()}
 * as the named metric {@value #CALLS_IN_FLIGHT}. {@link #of(LeaseStats)} reads them from the
 * adaptive lease policy, which measures them already; {@link #NONE} reports nothing.
 *
 * <p><b>Threads.</b> Implementations are read from any thread (event loops and the report timer)
 * and must be thread-safe and cheap.
 */
public interface ServerLoad {
  /** The named metric carrying {@link #callsInFlight()}. */
  String CALLS_IN_FLIGHT = "sluice.calls_in_flight";

  /** No figures: reports carry only what the application records. */
  ServerLoad NONE =
      new ServerLoad() {
        @Override
        public double utilization() {
          return 0;
        }

        @Override
        public double rps() {
          return 0;
        }

        @Override
        public long callsInFlight() {
          return 0;
        }

        @Override
        public String toString() {
          return "ServerLoad.NONE";
        }
      };

  /** The share of the server's capacity in use, at least 0 (1: full). */
  double utilization();

  /** Requests per second started recently, at least 0. */
  double rps();

  /** Calls being served now. */
  long callsInFlight();

  /**
   * The figures of an adaptive lease policy ({@code AdaptiveLeasePolicy.stats()}): utilization is
   * calls in flight over the concurrency limit, rps the calls started per second over the last
   * second or more (measured as reports read it).
   */
  static ServerLoad of(LeaseStats stats) {
    return new LeaseLoad(stats, System::nanoTime);
  }

  /** Writes {@code load}'s figures into {@code b} (nothing for {@link #NONE}). */
  static void writeTo(ServerLoad load, OrcaLoadReport.Builder b) {
    if (load == NONE) {
      return;
    }
    double u = load.utilization();
    double r = load.rps();
    if (Double.isFinite(u) && u > 0) {
      b.setApplicationUtilization(u);
    }
    if (Double.isFinite(r) && r > 0) {
      b.setRpsFractional(r);
    }
    b.putNamedMetrics(CALLS_IN_FLIGHT, Math.max(0, load.callsInFlight()));
  }

  /** {@link ServerLoad#of(LeaseStats)}: the rate is recomputed at most once a second. */
  final class LeaseLoad implements ServerLoad {
    private static final long RATE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LeaseStats stats;
    private final LongSupplier nanoClock;
    // Guarded by this.
    private long lastStarted;
    private long lastNanos;
    private double rate;

    LeaseLoad(LeaseStats stats, LongSupplier nanoClock) {
      this.stats = Objects.requireNonNull(stats, "stats");
      this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
      this.lastStarted = stats.started();
      this.lastNanos = nanoClock.getAsLong();
    }

    @Override
    public double utilization() {
      int limit = stats.limit();
      return limit <= 0 ? 0 : Math.max(0, stats.inFlight()) / (double) limit;
    }

    @Override
    public synchronized double rps() {
      long now = nanoClock.getAsLong();
      long elapsed = now - lastNanos;
      if (elapsed >= RATE_WINDOW_NANOS) {
        long started = stats.started();
        rate = Math.max(0, started - lastStarted) * 1e9 / elapsed;
        lastStarted = started;
        lastNanos = now;
      }
      return rate;
    }

    @Override
    public long callsInFlight() {
      return stats.inFlight();
    }

    @Override
    public String toString() {
      return "ServerLoad.of(" + stats + ")";
    }
  }
}
