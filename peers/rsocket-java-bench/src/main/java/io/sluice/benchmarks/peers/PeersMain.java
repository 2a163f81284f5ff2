package io.sluice.benchmarks.peers;

import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.benchmarks.harness.ChildMain;
import io.sluice.benchmarks.harness.Impl;

/**
 * The server and client processes of the rsocket-java and spring-rsocket impls of ./sluice bench,
 * and of the rsocket-java strategy of ./sluice bench --balancer.
 */
public final class PeersMain {
  private PeersMain() {}

  public static void main(String[] argv) throws Exception {
    if (argv.length > 0 && argv[0].equals("balancer-server")) {
      System.exit(BalancerChild.server(argv, new RSocketJavaBalancer()));
    }
    if (argv.length > 0 && argv[0].equals("balancer-client")) {
      System.exit(BalancerChild.client(argv, new RSocketJavaBalancer()));
    }
    if (argv.length > 0 && argv[0].equals("scale-server")) { // ./sluice bench --scale --impl rsocket-java
      System.exit(RSocketScaleServer.run(argv));
    }
    if (argv.length == 0 || !(argv[0].equals("server") || argv[0].equals("client"))) {
      System.err.println("usage: java -jar peers-rsocket.jar server|client --impl rsocket-java|rsocket-java-ws|spring-rsocket ..."
          + " | balancer-server|balancer-client ... | scale-server ...");
      System.exit(2);
    }
    int code = ChildMain.run(argv, PeersMain::impl);
    if (argv[0].equals("client")) {
      System.exit(code);
    }
  }

  static Impl impl(String name) {
    switch (name) {
      case "rsocket-java":
        return new RSocketJavaImpl(false);
      case "rsocket-java-ws":
        return new RSocketJavaImpl(true);
      case "spring-rsocket":
        return new SpringRSocketImpl();
      default:
        throw new Args.UsageException("impl '" + name + "' does not run in this JVM");
    }
  }
}
