package io.sluice.benchmarks.balancer;

import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.benchmarks.harness.BalancerStrategy;
import java.util.List;

/**
 * The strategies of {@code ./sluice bench --balancer} that run on Sluice: {@code round-robin}, and
 * {@code sluice-balancer} and {@code healthy} (Sluice's balancer, over one slow and three healthy
 * servers and over four healthy ones) when the balancer is in this build ({@link #BALANCER}).
 */
public final class SluiceStrategies implements BalancerChild.Strategies {

  /**
   * Opens Sluice's balancer over ports, or null when a build has none: its strategies then
   * report "not available".
   */
  static final BalancerFactory BALANCER = SluiceBalancerStrategy::open;

  /** How {@code sluice-balancer} and {@code healthy} open Sluice's balancer. */
  interface BalancerFactory {
    BalancerStrategy open(List<Integer> ports) throws Exception;
  }

  /** Whether Sluice's balancer is in this build. */
  public static boolean balancerAvailable() {
    return BALANCER != null;
  }

  @Override
  public BalancerStrategy open(String name, List<Integer> ports) throws Exception {
    switch (name) {
      case "round-robin":
        return RoundRobinStrategy.open(ports);
      case "sluice-balancer":
      case "healthy":
        if (BALANCER == null) {
          throw new Args.UsageException(name + " needs sluice-balancer, not in this build");
        }
        return BALANCER.open(ports);
      default:
        throw new Args.UsageException("strategy '" + name + "' does not run in this JVM");
    }
  }
}
