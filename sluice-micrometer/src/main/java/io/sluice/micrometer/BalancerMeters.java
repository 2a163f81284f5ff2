package io.sluice.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.sluice.balancer.Balancer;

/**
 * {@code sluice.balancer.*}: a client-side {@link Balancer}, read when the registry is scraped.
 *
 * <ul>
 *   <li>{@code sluice.balancer.picks} (counter): attempts sent to a server;
 *   <li>{@code sluice.balancer.retries} (counter): attempts that retried an earlier one of their
 *       call on another server;
 *   <li>{@code sluice.balancer.ejections} (counter): servers ejected after consecutive failures;
 *   <li>{@code sluice.balancer.servers}, {@code sluice.balancer.connections}, {@code
 *       sluice.balancer.pending} (gauges): servers in use, their connections, requests waiting
 *       for a server;
 *   <li>{@code sluice.balancer.availability} (gauge): the balancer's availability (0..1, the
 *       best of its servers' lease availability).
 * </ul>
 *
 * Tagged {@code balancer} (a name the application gives, one per balancer), {@code
 * transport=any}, {@code side=client}.
 */
public final class BalancerMeters {
  private BalancerMeters() {}

  /** Binds {@code balancer}'s figures under {@code name}. */
  public static void bind(SluiceMetrics metrics, Balancer balancer, String name) {
    var registry = metrics.registry();
    Tags tags = metrics.commonTags().and("balancer", name, "transport", "any", "side", "client");
    FunctionCounter.builder("sluice.balancer.picks", balancer, b -> b.counts().picks())
        .description("Attempts the balancer sent to a server")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("sluice.balancer.retries", balancer, b -> b.counts().retries())
        .description("Attempts that retried an earlier attempt of their call")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder("sluice.balancer.ejections", balancer, b -> b.counts().ejections())
        .description("Servers ejected after consecutive failures")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.balancer.servers", balancer, b -> b.retained().servers())
        .description("Servers the balancer uses")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.balancer.connections", balancer, b -> b.retained().connections())
        .description("Connections to those servers, open or closing")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.balancer.pending", balancer, b -> b.retained().pending())
        .description("Requests waiting for a server")
        .tags(tags)
        .register(registry);
    Gauge.builder("sluice.balancer.availability", balancer, Balancer::availability)
        .description("The balancer's availability, 0..1")
        .tags(tags)
        .register(registry);
  }
}
