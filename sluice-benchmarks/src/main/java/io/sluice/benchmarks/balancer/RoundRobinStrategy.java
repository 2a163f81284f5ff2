package io.sluice.benchmarks.balancer;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.benchmarks.harness.BalancerStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code round-robin}: one Sluice connection per server, each call on the next one in turn,
 * whatever it costs: the strategy a balancer has to beat.
 */
final class RoundRobinStrategy implements BalancerStrategy {
  private final SluiceClients clients;
  private final List<Requester> requesters;
  private int next; // the harness's one sending thread

  private RoundRobinStrategy(SluiceClients clients, List<Requester> requesters) {
    this.clients = clients;
    this.requesters = requesters;
  }

  static RoundRobinStrategy open(List<Integer> ports) throws Exception {
    SluiceClients clients = new SluiceClients(false);
    List<Requester> requesters = new ArrayList<>();
    try {
      for (int port : ports) {
        requesters.add(clients.connect(port).get(10, TimeUnit.SECONDS));
      }
    } catch (Exception e) {
      requesters.forEach(Requester::dispose);
      clients.shutdown();
      throw e;
    }
    return new RoundRobinStrategy(clients, requesters);
  }

  @Override
  public void call(Done done) {
    Requester r = requesters.get(next);
    next = (next + 1) % requesters.size();
    r.requestResponse(Message.of(SluiceClients.REQUEST), new IdListener(done));
  }

  @Override
  public void close() {
    requesters.forEach(Requester::dispose);
    clients.shutdown();
  }
}
