package io.sluice.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.sluice.lease.adaptive.LeaseStats;

/**
 * {@code sluice.lease.*}: what a server's {@code AdaptiveLeasePolicy} measures and decides,
 * read from its {@link LeaseStats} when the registry is scraped. Grants on the wire are {@code
 * sluice.frames{type=LEASE,direction=out}} (and {@code sluice.lease.grants}, the same count, made
 * by {@link SluiceMetrics#connections()}).
 *
 * <ul>
 *   <li>{@code sluice.lease.limit} (gauge): the server-wide concurrency limit now;
 *   <li>{@code sluice.lease.in_flight} (gauge): calls in flight on every connection;
 *   <li>{@code sluice.lease.connections} (gauge): connections granted to;
 *   <li>{@code sluice.lease.requests_per_connection} (gauge): the average grant per time to live;
 *   <li>{@code sluice.lease.latency} (gauge, seconds): the recent handler latency;
 *   <li>{@code sluice.lease.admitted_max_rank} (gauge): lowest priority admitted (-1: all);
 *   <li>{@code sluice.lease.started} and {@code sluice.lease.rejections} (counters): requests
 *       started, and refused before a handler saw them (no lease, expired, shed by rank).
 * </ul>
 *
 * All tagged {@code transport=any}, {@code side=server}: one policy serves every transport.
 */
public final class LeaseMeters {
  private LeaseMeters() {}

  /** Binds the figures of {@code stats} (an {@code AdaptiveLeasePolicy#stats()}). */
  public static void bind(SluiceMetrics metrics, LeaseStats stats) {
    var registry = metrics.registry();
    Tags tags = metrics.commonTags().and("transport", "any", "side", "server");
    Gauge.builder("sluice.lease.limit", stats, LeaseStats::limit)
        .description("Server-wide concurrency limit of the lease policy")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.lease.in_flight", stats, LeaseStats::inFlight)
        .description("Calls in flight under the lease policy")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.lease.connections", stats, LeaseStats::connections)
        .description("Connections the lease policy grants to")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.lease.requests_per_connection", stats, LeaseStats::requestsPerConnection)
        .description("Average requests granted per connection and time to live")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.lease.latency", stats, s -> s.latencyNanos() / 1e9)
        .description("Recent handler latency the limit is measured from")
        .baseUnit("seconds")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.lease.admitted_max_rank", stats, LeaseStats::admittedMaxRank)
        .description("Lowest priority admitted now (ranks above are shed)")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("sluice.lease.started", stats, LeaseStats::started)
        .description("Requests started under the lease policy")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("sluice.lease.rejections", stats, LeaseStats::rejected)
        .description("Requests refused before their handler (lease exhausted or expired, rank shed)")
        .tags(tags)
        .register(registry);
  }
}
