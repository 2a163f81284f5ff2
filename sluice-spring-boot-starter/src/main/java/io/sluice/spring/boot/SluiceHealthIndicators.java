package io.sluice.spring.boot;

import io.sluice.balancer.Balancer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** The actuator health of Sluice: the server, and each client's balancer. */
public final class SluiceHealthIndicators {
  private SluiceHealthIndicators() {}

  /** UP while the server accepts connections; DOWN before it started, and while it drains or after. */
  public static final class Server extends AbstractHealthIndicator {
    private final SluiceServerLifecycle server;

    public Server(SluiceServerLifecycle server) {
      super("Sluice server health check failed");
      this.server = server;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
      (server.isAccepting() ? builder.up() : builder.down())
          .withDetail("state", server.state().name().toLowerCase(java.util.Locale.ROOT))
          .withDetail("transport", server.wire())
          .withDetail("services", server.services());
      if (server.address() != null) {
        builder.withDetail("address", String.valueOf(server.address()));
      }
      if (server.connections() >= 0) {
        builder.withDetail("connections", server.connections());
      }
    }
  }

  /** UP when every client's balancer has a connected server; DOWN naming the clients without one. */
  public static final class Clients extends AbstractHealthIndicator {
    private final Map<String, Balancer> balancers;

    /** @param balancers by client name */
    public Clients(Map<String, Balancer> balancers) {
      super("Sluice clients health check failed");
      this.balancers = Map.copyOf(balancers);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
      boolean allLive = true;
      Map<String, Object> details = new LinkedHashMap<>();
      for (Map.Entry<String, Balancer> e : new java.util.TreeMap<>(balancers).entrySet()) {
        List<Balancer.ServerStatus> servers = e.getValue().servers();
        long connected = servers.stream().filter(s -> s.state().equals("connected")).count();
        allLive &= connected > 0;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("connected", connected);
        Map<String, String> states = new LinkedHashMap<>();
        for (Balancer.ServerStatus s : servers) {
          states.put(String.valueOf(s.address()), s.state());
        }
        d.put("servers", states);
        details.put(e.getKey(), d);
      }
      (allLive ? builder.up() : builder.down()).withDetails(details);
    }
  }
}
