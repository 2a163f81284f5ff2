package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.futures.FuturesRequester;
import io.sluice.lease.LeasePolicy;
import io.sluice.test.Ports;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The balancer with leasing servers ({@link Connections#start} with a {@link LeasePolicy}) and
 * leasing clients: availability comes from the servers' leases, a server that grants nothing gets
 * nothing, and a rolling restart with {@link SluiceServer#stop} under load fails no idempotent
 * call.
 */
class BalancerLeaseTest {
  private final List<SluiceServer> servers = new ArrayList<>();
  private final List<Balancer> balancers = new ArrayList<>();
  private final Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();

  @AfterEach
  void closeAll() throws Exception {
    for (Balancer b : balancers) {
      b.dispose();
      b.onClose().get(10, TimeUnit.SECONDS);
    }
    for (SluiceServer s : servers) {
      s.stop(Duration.ZERO).get(10, TimeUnit.SECONDS);
    }
  }

  private SluiceServer server(int port, LeasePolicy policy) throws Exception {
    AtomicInteger count = new AtomicInteger();
    Responder named =
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            count.incrementAndGet();
            TestServer.DELAYS.schedule(
                () -> response.nextAndComplete(Message.utf8(response.alloc(), "ok")),
                200,
                TimeUnit.MICROSECONDS);
            return StreamListener.DISCARDING;
          }
        };
    SluiceServer s;
    try {
      s =
          Connections.start(
                  TcpServerTransport.create("127.0.0.1", port),
                  ConnectionOptions.builder().leasePolicy(policy).build(),
                  (setup, requester) -> named)
              .get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof java.net.BindException) {
        // A restart on a port its stopped server let go of: say who holds it (seen once in CI).
        throw new AssertionError("cannot bind 127.0.0.1:" + port + "; its sockets:\n" + Ports.holders(port), e);
      }
      throw e;
    }
    servers.add(s);
    handled.put(((InetSocketAddress) s.address()).getPort(), count);
    return s;
  }

  private static int port(SluiceServer s) {
    return ((InetSocketAddress) s.address()).getPort();
  }

  static CompletableFuture<Requester> leasingConnect(SocketAddress address) {
    return Connections.connect(
        TcpClientTransport.create((InetSocketAddress) address),
        ConnectionOptions.builder().lease(true).build(),
        ClientSetup.defaults(),
        r -> new Responder() {});
  }

  private Balancer balancer(List<SluiceServer> of) {
    List<SocketAddress> addresses = new ArrayList<>();
    for (SluiceServer s : of) {
      addresses.add(s.address());
    }
    Balancer b =
        Balancer.builder()
            .addresses(AddressSource.fixed(addresses))
            .connector(BalancerLeaseTest::leasingConnect)
            .retryable(m -> m.dataUtf8().startsWith("idem"))
            .backoff(Duration.ofMillis(10), Duration.ofMillis(200))
            .waitForServer(Duration.ofSeconds(10))
            .build();
    balancers.add(b);
    return b;
  }

  private static void awaitConnected(Balancer b, int n) throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      if (b.servers().stream().filter(s -> s.state().equals("connected")).count() == n) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("not connected: " + b.servers());
  }

  private static String call(FuturesRequester client, String text) throws Exception {
    Message m = client.requestResponse(Message.utf8(client.alloc(), text)).get(10, TimeUnit.SECONDS);
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  @Test
  void aServerThatGrantsNoLeaseGetsNothingAndAnExhaustedLeaseIsRespected() throws Exception {
    SluiceServer none = server(0, LeasePolicy.fixed(Duration.ofSeconds(30), 0));
    SluiceServer small = server(0, LeasePolicy.fixed(Duration.ofSeconds(30), 20));
    SluiceServer big = server(0, LeasePolicy.unlimited());
    Balancer balancer = balancer(List.of(none, small, big));
    awaitConnected(balancer, 3);
    FuturesRequester client = new FuturesRequester(balancer);
    for (int i = 0; i < 200; i++) {
      assertThat(call(client, "call-" + i)).isEqualTo("ok");
    }
    assertThat(handled.get(port(none)).get()).isZero();
    assertThat(handled.get(port(small)).get()).isBetween(0, 20);
    assertThat(handled.get(port(big)).get()).isGreaterThanOrEqualTo(180);
    assertThat(balancer.availability()).isPositive();
  }

  @Test
  void aRollingRestartUnderLoadFailsNoIdempotentCall() throws Exception {
    List<SluiceServer> fleet = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      fleet.add(server(Ports.outsideEphemeralRange(), LeasePolicy.unlimited())); // restarted on it: see Ports
    }
    Balancer balancer = balancer(fleet);
    awaitConnected(balancer, 3);
    FuturesRequester client = new FuturesRequester(balancer);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger idemOk = new AtomicInteger();
    AtomicInteger otherOk = new AtomicInteger();
    List<Throwable> idemFailed = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Throwable> otherFailed = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> load = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      boolean idem = t % 2 == 0;
      Thread th =
          new Thread(
              () -> {
                for (int i = 0; running.get() && i < 100_000; i++) { // bounded
                  try {
                    call(client, (idem ? "idem-" : "call-") + i);
                    (idem ? idemOk : otherOk).incrementAndGet();
                  } catch (ExecutionException e) {
                    (idem ? idemFailed : otherFailed).add(e.getCause());
                  } catch (Exception e) {
                    (idem ? idemFailed : otherFailed).add(e);
                  }
                }
              });
      th.start();
      load.add(th);
    }
    try {
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < fleet.size(); i++) {
          SluiceServer old = fleet.get(i);
          int p = port(old);
          int before = idemOk.get();
          old.stop(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
          fleet.set(i, server(p, LeasePolicy.unlimited())); // the new version, same port
          awaitConnected(balancer, 3);
          for (int w = 0; w < 1000 && idemOk.get() < before + 50; w++) {
            Thread.sleep(5); // some load on the full fleet before the next one goes
          }
        }
      }
    } finally {
      running.set(false);
      for (Thread th : load) {
        th.join(20_000);
      }
    }
    System.out.println(
        "rolling restart: idempotent ok="
            + idemOk
            + " failed="
            + idemFailed.size()
            + ", non-idempotent ok="
            + otherOk
            + " failed="
            + otherFailed.size()
            + (otherFailed.isEmpty() ? "" : " (first: " + otherFailed.get(0) + ")"));
    assertThat(idemFailed).isEmpty();
    assertThat(idemOk.get()).isGreaterThan(100);
    assertThat(balancer.retained().servers()).isEqualTo(3);
  }
}
