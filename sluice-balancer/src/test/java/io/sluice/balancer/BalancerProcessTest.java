package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.futures.FuturesRequester;
import io.sluice.test.Ports;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The balancer against servers in child processes on 127.0.0.1, where timing matters: a server
 * ten times slower than three others, a server killed (SIGKILL) under load, and a rolling restart
 * (SIGTERM: a graceful stop) of every server under load. Assertions are on outcomes and shares,
 * never on durations; every wait is bounded.
 */
class BalancerProcessTest {
  private final List<ChildProcess> children = new ArrayList<>();
  private Balancer balancer;

  @AfterEach
  void closeAll() throws Exception {
    if (balancer != null) {
      balancer.dispose();
      balancer.onClose().get(10, TimeUnit.SECONDS);
    }
    children.forEach(ChildProcess::close);
  }

  private ChildProcess child(String name, int port, long delayMicros) throws Exception {
    ChildProcess c = new ChildProcess(name, port, delayMicros);
    children.add(c);
    return c;
  }

  private Balancer balancer(List<ChildProcess> of) {
    List<SocketAddress> addresses = new ArrayList<>();
    for (ChildProcess c : of) {
      addresses.add(c.address());
    }
    balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(addresses))
            .connector(BalancerLeaseTest::leasingConnect)
            .retryable(m -> m.dataUtf8().startsWith("idem"))
            .backoff(Duration.ofMillis(20), Duration.ofMillis(500))
            .waitForServer(Duration.ofSeconds(10))
            .build();
    return balancer;
  }

  private static void awaitConnected(Balancer b, int n) throws InterruptedException {
    for (int i = 0; i < 3000; i++) {
      if (b.servers().stream().filter(s -> s.state().equals("connected")).count() == n) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("not connected: " + b.servers());
  }

  /** Outcomes of a load run: answers by server, failures by kind of call. */
  private static final class Outcomes {
    final Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
    final AtomicInteger idemOk = new AtomicInteger();
    final List<Throwable> idemFailed = new CopyOnWriteArrayList<>();
    final List<Throwable> otherFailed = new CopyOnWriteArrayList<>();
    final AtomicInteger hung = new AtomicInteger();

    int total() {
      return answers.values().stream().mapToInt(AtomicInteger::get).sum();
    }
  }

  /** Threads calling one at a time until told to stop; half idempotent. Bounded. */
  private static List<Thread> load(
      FuturesRequester client, int threads, AtomicBoolean running, Outcomes o) {
    List<Thread> r = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      boolean idem = t % 2 == 0;
      Thread th =
          new Thread(
              () -> {
                for (int i = 0; running.get() && i < 1_000_000; i++) {
                  try {
                    Message m =
                        client
                            .requestResponse(
                                Message.utf8(client.alloc(), (idem ? "idem-" : "call-") + i))
                            .get(20, TimeUnit.SECONDS);
                    o.answers.computeIfAbsent(m.dataUtf8(), k -> new AtomicInteger()).incrementAndGet();
                    m.release();
                    if (idem) {
                      o.idemOk.incrementAndGet();
                    }
                  } catch (TimeoutException e) {
                    o.hung.incrementAndGet();
                  } catch (ExecutionException e) {
                    (idem ? o.idemFailed : o.otherFailed).add(e.getCause());
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      th.start();
      r.add(th);
    }
    return r;
  }

  private static void awaitCalls(Outcomes o, int atLeast) throws InterruptedException {
    for (int i = 0; i < 6000 && o.total() < atLeast; i++) {
      Thread.sleep(5);
    }
  }

  @Test
  void oneOfFourServersTenTimesSlowerGetsASmallerShareThanEachOther() throws Exception {
    List<ChildProcess> fleet = new ArrayList<>();
    for (String name : List.of("A", "B", "C")) {
      fleet.add(child(name, 0, 2_000));
    }
    fleet.add(child("SLOW", 0, 20_000));
    Balancer b = balancer(fleet);
    awaitConnected(b, 4);
    FuturesRequester client = new FuturesRequester(b);
    Outcomes o = new Outcomes();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = load(client, 16, running, o);
    awaitCalls(o, 3000);
    running.set(false);
    for (Thread t : threads) {
      t.join(30_000);
    }
    Map<String, AtomicInteger> got = o.answers;
    System.out.println("child processes, one 10x slower: " + got);
    int slow = got.getOrDefault("SLOW", new AtomicInteger()).get();
    for (String fast : List.of("A", "B", "C")) {
      assertThat(slow).as("SLOW vs %s in %s", fast, got).isLessThan(got.get(fast).get());
    }
    assertThat(o.idemFailed).isEmpty();
    assertThat(o.otherFailed).isEmpty();
  }

  @Test
  void aKilledServerProcessCostsNoIdempotentCallAndNoCallHangs() throws Exception {
    List<ChildProcess> fleet = new ArrayList<>();
    for (String name : List.of("A", "B", "V")) {
      fleet.add(child(name, 0, 1_000));
    }
    Balancer b = balancer(fleet);
    awaitConnected(b, 3);
    FuturesRequester client = new FuturesRequester(b);
    Outcomes o = new Outcomes();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = load(client, 8, running, o);
    try {
      awaitCalls(o, 500);
      for (int i = 0; i < 6000 && o.answers.getOrDefault("V", new AtomicInteger()).get() < 50; i++) {
        Thread.sleep(5); // V in rotation (a cold JVM's first slow answers keep it aside a while)
      }
      assertThat(o.answers.get("V")).as("V answered before the kill").isNotNull();
      fleet.get(2).kill(); // SIGKILL mid-run
      int atKill = o.total();
      awaitCalls(o, atKill + 1000);
    } finally {
      running.set(false);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }
    System.out.println(
        "killed process: answers "
            + o.answers
            + ", non-idempotent failed "
            + o.otherFailed.size()
            + (o.otherFailed.isEmpty() ? "" : " (first: " + o.otherFailed.get(0) + ")"));
    assertThat(o.hung).hasValue(0);
    assertThat(o.idemFailed).isEmpty();
    for (Throwable e : o.otherFailed) { // a clear error naming the dead server
      assertThat(e)
          .isInstanceOf(ConnectionErrorException.class)
          .hasMessageContaining("127.0.0.1:" + fleet.get(2).port);
    }
    assertThat(b.servers())
        .filteredOn(s -> s.address().equals(fleet.get(2).address()))
        .allMatch(s -> !s.state().equals("connected"));
  }

  @Test
  void aRollingRestartOfEveryServerProcessUnderLoadFailsNoCall() throws Exception {
    List<ChildProcess> fleet = new ArrayList<>();
    for (String name : List.of("A", "B", "C")) {
      fleet.add(child(name, Ports.outsideEphemeralRange(), 1_000)); // restarted on it: see Ports
    }
    Balancer b = balancer(fleet);
    awaitConnected(b, 3);
    FuturesRequester client = new FuturesRequester(b);
    Outcomes o = new Outcomes();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = load(client, 8, running, o);
    try {
      for (int i = 0; i < fleet.size(); i++) {
        ChildProcess old = fleet.get(i);
        awaitCalls(o, o.total() + 300);
        old.stop(); // SIGTERM: graceful stop, then the process exits
        fleet.set(i, child(old.name + "2", old.port, 1_000)); // the new version, same port
        awaitConnected(b, 3);
      }
      awaitCalls(o, o.total() + 300);
    } finally {
      running.set(false);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }
    System.out.println(
        "rolling restart of child processes: answers "
            + o.answers
            + ", idempotent ok "
            + o.idemOk
            + ", non-idempotent failed "
            + o.otherFailed.size()
            + (o.otherFailed.isEmpty() ? "" : " (first: " + o.otherFailed.get(0) + ")"));
    assertThat(o.hung).hasValue(0);
    assertThat(o.idemFailed).isEmpty();
    // Not even a non-idempotent one: a request that crosses a server's stop reaches a connection
    // that waits for the client to close it, and is refused with REJECTED, which is sent elsewhere.
    assertThat(o.otherFailed).isEmpty();
    assertThat(o.answers).containsKeys("A2", "B2", "C2");
    assertThat(b.retained().servers()).isEqualTo(3);
  }
}
