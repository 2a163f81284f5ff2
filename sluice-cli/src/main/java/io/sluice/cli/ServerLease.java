package io.sluice.cli;

import io.sluice.lease.LeasePolicy;
import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The server command's lease options: {@code --lease} (the adaptive policy, sluice-lease's
 * default) or {@code --lease-fixed TTL_MS:REQUESTS}; without either the server keeps granting
 * unlimited leases to clients that ask for them.
 */
final class ServerLease {
  /** How often {@code --lease} prints the policy's figures on stderr. */
  static final Duration REPORT_EVERY = Duration.ofSeconds(10);

  private ServerLease() {}

  /** The policy the options ask for, or null for none. */
  static LeasePolicy policy(Args a) {
    boolean adaptive = a.flag("lease");
    String fixed = a.get("lease-fixed", null);
    if (adaptive && fixed != null) {
      throw new Args.UsageException("--lease and --lease-fixed are two policies: pick one");
    }
    if ((adaptive || fixed != null) && Endpoints.kind(a) == Endpoints.Kind.H2) {
      throw new Args.UsageException(
          (adaptive ? "--lease" : "--lease-fixed") + ": the HTTP/2 stream mapping (h2) carries no lease");
    }
    if (adaptive) {
      return AdaptiveLeasePolicy.withDefaults();
    }
    return fixed == null ? null : fixed(fixed);
  }

  /** {@code TTL_MS:REQUESTS}, e.g. {@code 1000:50}. */
  static LeasePolicy fixed(String spec) {
    int colon = spec.indexOf(':');
    if (colon < 0) {
      throw new Args.UsageException("--lease-fixed needs TTL_MS:REQUESTS (e.g. 1000:50), got '" + spec + "'");
    }
    long ttl = number(spec.substring(0, colon), "its ttl in ms", 1);
    long requests = number(spec.substring(colon + 1), "its requests", 0);
    return LeasePolicy.fixed(Duration.ofMillis(ttl), (int) requests);
  }

  private static long number(String s, String what, int min) {
    long v;
    try {
      v = Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      v = -1;
    }
    if (v < min || v > Integer.MAX_VALUE) {
      throw new Args.UsageException(
          "--lease-fixed TTL_MS:REQUESTS: " + what + " must be " + min + " to " + Integer.MAX_VALUE
              + ", got '" + s + "'");
    }
    return v;
  }

  /**
   * For the adaptive policy: prints its figures on {@code err} every {@link #REPORT_EVERY} from a
   * daemon thread, so the process still ends when the server does. Null for other policies.
   */
  static ScheduledExecutorService report(LeasePolicy policy, PrintStream err) {
    return reportIfAdaptive(policy, err);
  }

  /** With {@code --metrics-port}: the adaptive policy's figures as {@code sluice.lease.*}. */
  static void bindMetrics(LeasePolicy policy, io.sluice.micrometer.SluiceMetrics metrics) {
    if (policy instanceof AdaptiveLeasePolicy) {
      io.sluice.micrometer.LeaseMeters.bind(metrics, ((AdaptiveLeasePolicy) policy).stats());
    }
  }

  private static ScheduledExecutorService reportIfAdaptive(LeasePolicy policy, PrintStream err) {
    if (!(policy instanceof AdaptiveLeasePolicy)) {
      return null;
    }
    AdaptiveLeasePolicy adaptive = (AdaptiveLeasePolicy) policy;
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-lease-report");
              t.setDaemon(true);
              return t;
            });
    long every = REPORT_EVERY.toMillis();
    timer.scheduleAtFixedRate(
        () -> err.println("LEASE " + adaptive.stats()), every, every, TimeUnit.MILLISECONDS);
    return timer;
  }
}
