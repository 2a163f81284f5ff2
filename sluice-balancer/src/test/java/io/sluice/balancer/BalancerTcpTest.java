package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.futures.FuturesRequester;
import io.sluice.test.Ports;
import io.sluice.transport.netty.TcpClientTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The balancer over real TCP connections to in-process servers on 127.0.0.1: spreading, slow and
 * draining servers, a killed server, servers appearing and leaving, restarts. Every assertion is
 * on where requests went and how they ended, never on how long something took; every wait is
 * bounded.
 */
class BalancerTcpTest {
  private final List<TestServer> servers = new ArrayList<>();
  private final List<Balancer> balancers = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (Balancer b : balancers) {
      b.dispose();
      b.onClose().get(10, TimeUnit.SECONDS);
    }
    servers.forEach(TestServer::close);
  }

  static CompletableFuture<Requester> connect(SocketAddress address) {
    return Connections.connect(
        TcpClientTransport.create((InetSocketAddress) address),
        ConnectionOptions.defaults(),
        ClientSetup.defaults(),
        r -> new Responder() {});
  }

  private TestServer server(String name) throws Exception {
    TestServer s = TestServer.start(name);
    servers.add(s);
    return s;
  }

  private Balancer balancer(AddressSource source, Consumer<Balancer.Builder> options) {
    Balancer.Builder b =
        Balancer.builder()
            .addresses(source)
            .connector(BalancerTcpTest::connect)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(200));
    options.accept(b);
    Balancer balancer = b.build();
    balancers.add(balancer);
    return balancer;
  }

  private static List<SocketAddress> addresses(TestServer... s) {
    List<SocketAddress> r = new ArrayList<>();
    for (TestServer t : s) {
      r.add(t.address());
    }
    return r;
  }

  /** Sends {@code total} request-responses, {@code concurrency} at a time; the answers by name. */
  private static Map<String, Integer> load(FuturesRequester client, int total, int concurrency)
      throws Exception {
    Map<String, Integer> byServer = new HashMap<>();
    for (int sent = 0; sent < total; ) {
      List<CompletableFuture<Message>> wave = new ArrayList<>();
      for (int i = 0; i < concurrency && sent < total; i++, sent++) {
        wave.add(client.requestResponse(Message.utf8(client.alloc(), "idem-" + sent)));
      }
      Exception first = null;
      for (CompletableFuture<Message> f : wave) { // every answer released, also after a failure
        try {
          Message m = f.get(10, TimeUnit.SECONDS);
          byServer.merge(m.dataUtf8(), 1, Integer::sum);
          m.release();
        } catch (Exception e) {
          first = first == null ? e : first;
        }
      }
      if (first != null) {
        throw first;
      }
    }
    return byServer;
  }

  private static void awaitState(Balancer b, TestServer s, String state, boolean is)
      throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      boolean match =
          b.servers().stream()
              .anyMatch(x -> x.address().equals(s.address()) && x.state().equals(state));
      if (match == is) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError(s.name + " state " + (is ? "" : "not ") + state + ": " + b.servers());
  }

  @Test
  void spreadsRequestsOverEveryServerThroughAFlavor() throws Exception {
    TestServer a = server("A");
    TestServer b = server("B");
    TestServer c = server("C");
    Balancer balancer = balancer(AddressSource.fixed(addresses(a, b, c)), x -> {});
    FuturesRequester client = new FuturesRequester(balancer); // a flavor, unchanged
    Map<String, Integer> got = load(client, 900, 32);
    assertThat(got.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(900);
    for (String name : List.of("A", "B", "C")) {
      assertThat(got.getOrDefault(name, 0)).as("share of " + name + " in " + got).isGreaterThan(90);
    }
    assertThat(balancer.servers()).allMatch(s -> s.state().equals("connected"));
    assertThat(balancer.servers().stream().mapToLong(Balancer.ServerStatus::requests).sum())
        .isEqualTo(900);
  }

  @Test
  void aTenTimesSlowerServerGetsASmallerShareThanEachFastOne() throws Exception {
    TestServer[] all = {server("A"), server("B"), server("C"), server("SLOW")};
    for (TestServer s : all) {
      s.delayMicros = 2_000;
    }
    all[3].delayMicros = 20_000; // ten times slower, a delay off the event loop
    Balancer balancer = balancer(AddressSource.fixed(addresses(all)), x -> {});
    Map<String, Integer> got = load(new FuturesRequester(balancer), 1200, 16);
    int slow = got.getOrDefault("SLOW", 0);
    for (String fast : List.of("A", "B", "C")) {
      assertThat(slow).as("slow vs " + fast + " in " + got).isLessThan(got.getOrDefault(fast, 0));
    }
    System.out.println("slow server share: " + got);
  }

  @Test
  void aServerThatDrainsGetsNoNewRequestsAndNoIdempotentCallFails() throws Exception {
    TestServer a = server("A");
    TestServer b = server("B");
    // Idempotent: a request that crosses the server's CONNECTION_CLOSE on the wire finds the
    // connection closed without an answer, which cannot be told from a crash (RSocket has no
    // "last stream processed"); only an idempotent one may be retried then.
    Balancer balancer =
        balancer(
            AddressSource.fixed(addresses(a, b)),
            x -> x.retryable(m -> m.dataUtf8().startsWith("idem")));
    FuturesRequester client = new FuturesRequester(balancer);
    assertThat(load(client, 200, 16)).containsKeys("A", "B");
    b.stopGracefully(); // LEASE-less drain: CONNECTION_CLOSE, listener closed
    for (int i = 0; i < 1000 && b.connections.stream().anyMatch(Requester::isOpen); i++) {
      Thread.sleep(10); // until B's side is draining: from then on it processes nothing new
    }
    int before = b.requests.get();
    // No wait: a request that still reaches B's closing connection is REJECTED and retried.
    Map<String, Integer> got = load(client, 300, 16);
    assertThat(got).containsOnlyKeys("A");
    assertThat(b.requests.get()).isEqualTo(before);
  }

  @Test
  void aKilledServerCostsNoIdempotentCall() throws Exception {
    TestServer a = server("A");
    TestServer b = server("B");
    TestServer victim = server("V");
    Balancer balancer =
        balancer(
            AddressSource.fixed(addresses(a, b, victim)),
            x -> x.retryable(m -> m.dataUtf8().startsWith("idem")));
    FuturesRequester client = new FuturesRequester(balancer);
    load(client, 60, 8); // measured: every server connected and answering
    List<CompletableFuture<Message>> calls = sendUntilHeld(client, victim, "idem-");
    victim.kill();
    try {
      for (CompletableFuture<Message> f : calls) {
        Message m = f.get(10, TimeUnit.SECONDS); // every one answered, by another server
        try {
          assertThat(m.dataUtf8()).isIn("A", "B");
        } finally {
          m.release();
        }
      }
    } finally {
      releaseLater(calls);
    }
  }

  /**
   * Sends requests in bursts until the victim holds some (they will never be answered there);
   * the others answer theirs. Bounded.
   */
  private static List<CompletableFuture<Message>> sendUntilHeld(
      FuturesRequester client, TestServer victim, String prefix) throws InterruptedException {
    victim.hold = true;
    List<CompletableFuture<Message>> calls = new ArrayList<>();
    for (int burst = 0; burst < 300 && victim.held.isEmpty(); burst++) {
      for (int i = 0; i < 16; i++) {
        calls.add(client.requestResponse(Message.utf8(client.alloc(), prefix + calls.size())));
      }
      Thread.sleep(5);
    }
    if (victim.held.isEmpty()) {
      releaseLater(calls);
      throw new AssertionError("the victim got no request in " + calls.size());
    }
    return calls;
  }

  /** Releases whatever answers are still to come (after a failed assertion: no leak reports). */
  private static void releaseLater(List<CompletableFuture<Message>> calls) {
    for (CompletableFuture<Message> f : calls) {
      if (!f.isDone()) {
        f.thenAccept(Message::release);
      }
    }
  }

  @Test
  void aKilledServerFailsItsNonIdempotentCallsAtOnceAndClearly() throws Exception {
    TestServer a = server("A");
    TestServer victim = server("V");
    Balancer balancer = balancer(AddressSource.fixed(addresses(a, victim)), x -> {});
    FuturesRequester client = new FuturesRequester(balancer);
    load(client, 40, 8);
    List<CompletableFuture<Message>> calls = sendUntilHeld(client, victim, "call-");
    int held = victim.held.size();
    victim.kill();
    int failed = 0;
    try {
      for (CompletableFuture<Message> f : calls) {
        Message m;
        try {
          m = f.get(10, TimeUnit.SECONDS); // bounded: a hang fails here
        } catch (ExecutionException e) {
          failed++;
          assertThat(e.getCause())
              .isInstanceOf(ConnectionErrorException.class)
              .hasMessageContaining("127.0.0.1:" + victim.port())
              .hasMessageContaining("not marked idempotent");
          continue;
        }
        try {
          assertThat(m.dataUtf8()).isEqualTo("A");
        } finally {
          m.release();
        }
      }
    } finally {
      releaseLater(calls);
    }
    assertThat(failed).isGreaterThanOrEqualTo(held);
    awaitState(balancer, victim, "connected", false);
    assertThat(load(client, 100, 8)).containsOnlyKeys("A"); // the dead one is out of rotation
  }

  @Test
  void aNewServerGetsTrafficSoonAfterItAppears() throws Exception {
    TestServer a = server("A");
    TestServer b = server("B");
    ManualAddressSource source = AddressSource.manual();
    source.update(addresses(a));
    Balancer balancer = balancer(source, x -> {});
    FuturesRequester client = new FuturesRequester(balancer);
    assertThat(load(client, 50, 4)).containsOnlyKeys("A");
    long t0 = System.nanoTime();
    source.update(addresses(a, b));
    int sent = 0;
    while (b.requests.get() == 0 && sent < 20_000) {
      load(client, 4, 4);
      sent += 4;
    }
    assertThat(b.requests.get()).isPositive();
    System.out.println(
        "new server's first request after "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
            + " ms, "
            + sent
            + " requests");
  }

  @Test
  void aServerLeavingTheSourceIsDrainedNotCut() throws Exception {
    TestServer a = server("A");
    TestServer b = server("B");
    ManualAddressSource source = AddressSource.manual();
    source.update(addresses(b));
    Balancer balancer = balancer(source, x -> {});
    Recorder stream = new Recorder();
    balancer.requestStream(Message.utf8("s"), 16, stream);
    for (int i = 0; i < 1000 && stream.messages.isEmpty(); i++) {
      Thread.sleep(10);
    }
    assertThat(stream.messages).containsExactly("B-0");
    source.update(addresses(a)); // B leaves, A arrives
    balancer.servers(); // a barrier: the balancer's executor has taken the new set
    int before = b.requests.get();
    assertThat(load(new FuturesRequester(balancer), 100, 8)).containsOnlyKeys("A");
    assertThat(b.requests.get()).isEqualTo(before);
    b.streamGate.countDown(); // the live stream finishes on the drained connection
    assertThat(stream.await()).isNull();
    assertThat(stream.messages).containsExactly("B-0", "B-1");
    for (int i = 0; i < 1000 && !b.connections.isEmpty(); i++) {
      Thread.sleep(10);
    }
    assertThat(b.connections).isEmpty(); // then closed
    assertThat(balancer.retained().servers()).isEqualTo(1);
  }

  @Test
  void reconnectsAfterAServerRestartsOnTheSamePortAndStaysBounded() throws Exception {
    int port = Ports.outsideEphemeralRange(); // restarted on it: see Ports
    TestServer first = TestServer.start("A", port);
    servers.add(first);
    Balancer balancer =
        balancer(
            AddressSource.fixed(addresses(first)),
            x -> x.waitForServer(Duration.ofSeconds(10)));
    FuturesRequester client = new FuturesRequester(balancer);
    assertThat(load(client, 10, 2)).containsOnlyKeys("A");
    TestServer current = first;
    for (int cycle = 0; cycle < 15; cycle++) {
      current.kill();
      awaitState(balancer, current, "connected", false);
      current = TestServer.start("A" + cycle, port);
      servers.add(current);
      // Sent while no connection is up: waits for the reconnect, then goes to the new server.
      assertThat(load(client, 4, 2)).containsOnlyKeys("A" + cycle);
    }
    Balancer.Retained held = balancer.retained();
    assertThat(held.servers()).isEqualTo(1);
    assertThat(held.connections()).isBetween(1, 2);
    assertThat(held.pending()).isZero();
  }
}
