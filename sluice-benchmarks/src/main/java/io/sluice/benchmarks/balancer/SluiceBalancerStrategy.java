package io.sluice.benchmarks.balancer;

import io.sluice.Message;
import io.sluice.balancer.AddressSource;
import io.sluice.balancer.Balancer;
import io.sluice.benchmarks.harness.BalancerStrategy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice-balancer} and {@code healthy}: Sluice's {@link Balancer} with its defaults over a
 * fixed list of the servers, its connections asking for leasing, all on one client event loop.
 */
final class SluiceBalancerStrategy implements BalancerStrategy {
  private static final int CONNECT_SECONDS = 30;

  private final SluiceClients clients;
  private final Balancer balancer;

  private SluiceBalancerStrategy(SluiceClients clients, Balancer balancer) {
    this.clients = clients;
    this.balancer = balancer;
  }

  static SluiceBalancerStrategy open(List<Integer> ports) throws InterruptedException {
    SluiceClients clients = new SluiceClients(true);
    List<SocketAddress> addresses = new ArrayList<>();
    for (int port : ports) {
      addresses.add(new InetSocketAddress("127.0.0.1", port));
    }
    try {
      Balancer balancer =
          Balancer.builder()
              .addresses(AddressSource.fixed(addresses))
              .connector(a -> clients.connect(((InetSocketAddress) a).getPort()))
              .build();
      SluiceBalancerStrategy strategy = new SluiceBalancerStrategy(clients, balancer);
      try {
        strategy.awaitConnected(ports.size());
      } catch (RuntimeException | InterruptedException e) {
        strategy.close();
        throw e;
      }
      return strategy;
    } catch (RuntimeException e) {
      clients.shutdown();
      throw e;
    }
  }

  /**
   * Waits until the balancer has connected to every server, as round robin has before its first
   * call: the load then starts on a ready client (otherwise the first second's calls wait for
   * connections, and those beyond the balancer's bound of waiting requests are REJECTED).
   */
  private void awaitConnected(int servers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONNECT_SECONDS);
    while (true) {
      List<Balancer.ServerStatus> status = balancer.servers();
      if (status.stream().filter(s -> s.state().equals("connected")).count() >= servers) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("sluice-balancer did not connect to all " + servers
            + " servers within " + CONNECT_SECONDS + " s: " + status);
      }
      Thread.sleep(20);
    }
  }

  @Override
  public void call(Done done) {
    balancer.requestResponse(Message.of(SluiceClients.REQUEST), new IdListener(done));
  }

  @Override
  public void close() {
    balancer.dispose();
    clients.shutdown();
  }
}
