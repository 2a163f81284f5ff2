package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The balancer's connections over scripted servers ({@link FakeServer}): reconnect delays after a
 * clean close, closing connections kept until their streams end, a drained server's connection
 * still owned, the aperture after an ejection, a new server's first call, a refusal from the
 * connection's queue. Counts are checked against the backoff schedule, never a duration.
 */
class BalancerConnectionsTest {
  private final List<Balancer> balancers = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (Balancer b : balancers) {
      b.dispose();
      b.onClose().get(10, TimeUnit.SECONDS);
    }
  }

  private Balancer balancer(
      AddressSource source, Consumer<Balancer.Builder> options, FakeServer... servers) {
    Map<SocketAddress, FakeServer> byAddress = new HashMap<>();
    for (FakeServer s : servers) {
      byAddress.put(s.address, s);
    }
    Balancer.Builder b =
        Balancer.builder()
            .addresses(source)
            .connector(a -> byAddress.get(a).connect())
            .backoff(Duration.ofMillis(5), Duration.ofMillis(20));
    options.accept(b);
    Balancer balancer = b.build();
    balancers.add(balancer);
    return balancer;
  }

  private static AddressSource fixed(FakeServer... servers) {
    List<SocketAddress> a = new ArrayList<>();
    for (FakeServer s : servers) {
      a.add(s.address);
    }
    return AddressSource.fixed(a);
  }

  private static Message request(String text) {
    return Message.utf8(text);
  }

  private static Throwable rr(Balancer b, String text, List<String> answers) throws Exception {
    Recorder r = new Recorder();
    b.requestResponse(request(text), r);
    Throwable e = r.await();
    answers.addAll(r.messages);
    return e;
  }

  /** Waits (bounded, 10 s) until {@code condition} holds; fails the test otherwise. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("not within 10 s: " + what);
  }

  /** Holds streams (never answers them) and answers request-responses with {@code name}. */
  private static FakeServer.Script holdingStreams(String name) {
    return (kind, req, l, s) -> {
      req.release();
      if (kind.equals("rr")) {
        l.onNext(Message.utf8(name));
        l.onComplete();
      }
    };
  }

  /**
   * The most connects one client can have made {@code elapsedNanos} after it started, if every
   * reconnect waits at least half of its backoff step: the first connect at once, the k-th after
   * the sum of the half steps of failures 1..k-1.
   */
  static int maxConnects(long elapsedNanos, Duration initial, Duration max) {
    long t = 0;
    int k = 1;
    for (int failures = 1; ; failures++) {
      long step = Math.min(initial.toNanos() << Math.min(failures - 1, 30), max.toNanos());
      t += step / 2;
      if (t > elapsedNanos) {
        return k;
      }
      k++;
    }
  }

  /**
   * A server that accepts and closes at once without a word (at its connection cap, an L4 proxy
   * without a backend): each close is a failure and the reconnects back off, not a tight loop.
   */
  @Test
  void aServerThatClosesEveryConnectionAtOnceIsReconnectedWithBackoff() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    a.closeAtOnce = true;
    Duration initial = Duration.ofMillis(100);
    Duration max = Duration.ofSeconds(1);
    long t0 = System.nanoTime();
    Balancer balancer = balancer(fixed(a), x -> x.backoff(initial, max), a);
    await("four connects", () -> a.connects.get() >= 4);
    int connects = a.connects.get();
    long elapsed = System.nanoTime() - t0;
    assertThat(connects)
        .as("connects in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsed))
        .isLessThanOrEqualTo(maxConnects(elapsed, initial, max));
    assertThat(balancer.servers().get(0).failures()).isPositive();
  }

  /**
   * After a drain (the server closes a connection that worked, cleanly) the reconnect waits a
   * jittered delay too: clients that lost a server together do not all come back at once.
   */
  @Test
  void theReconnectAfterADrainWaitsAJitteredDelay() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    Duration initial = Duration.ofMillis(200);
    Balancer balancer = balancer(fixed(a), x -> x.backoff(initial, Duration.ofSeconds(2)), a);
    BalancerRetryTest.awaitConnected(balancer, 1);
    long t0 = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      assertThat(rr(balancer, "x", new ArrayList<>())).isNull(); // the connection worked
      FakeServer.Connection c = a.last;
      c.close(); // the server's drain
      await("reconnected", () -> a.last != c);
      BalancerRetryTest.awaitConnected(balancer, 1);
    }
    long elapsed = System.nanoTime() - t0;
    // Each reconnect waits at least half the first step: at most 1 + elapsed / (initial / 2)
    // connects since t0 (the first was before).
    assertThat(a.connects.get() - 1)
        .as("reconnects in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsed))
        .isEqualTo(3)
        .isLessThanOrEqualTo((int) (elapsed / (initial.toNanos() / 2)));
    assertThat(balancer.servers().get(0).failures()).as("a drain is no failure").isZero();
  }

  /**
   * Connection 1 drains with a live stream, connection 2 drains too: connection 1 is left to
   * finish its stream, not cut.
   */
  @Test
  void aSecondDrainDoesNotCutTheFirstDrainedConnection() throws Exception {
    FakeServer a = new FakeServer(1, holdingStreams("A"));
    a.holdClose = true;
    Balancer balancer = balancer(fixed(a), x -> {}, a);
    BalancerRetryTest.awaitConnected(balancer, 1);
    Recorder stream = new Recorder();
    balancer.requestStream(request("live"), 1, stream);
    await("the stream reached the server", () -> a.handles.size() == 1);
    FakeServer.Connection c1 = a.last;
    c1.startClosing();
    await("a second connection", () -> a.last != c1);
    FakeServer.Connection c2 = a.last;
    c2.startClosing();
    await("a third connection", () -> a.last != c2);
    balancer.servers(); // the balancer's executor is past the retire of c2
    FakeServer.LOOP.submit(() -> {}).get(10, TimeUnit.SECONDS); // and c1's loop too
    assertThat(c1.disposed).as("the first drained connection was cut").isFalse();
    assertThat(stream.done).isNotDone();
    assertThat(balancer.retained().connections()).isEqualTo(3);
    c1.closed.complete(null); // its stream ends, it closes
    c2.closed.complete(null);
    await("closed connections forgotten", () -> balancer.retained().connections() == 1);
  }

  /**
   * A server that leaves the address set while a stream is live: its connection is still the
   * balancer's (counted, and cut by dispose()), not forgotten.
   */
  @Test
  void aDrainedServersConnectionIsCountedAndCutByDispose() throws Exception {
    FakeServer a = new FakeServer(1, holdingStreams("A"));
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    a.holdClose = true;
    ManualAddressSource source = AddressSource.manual();
    source.update(List.of(a.address));
    Balancer balancer = balancer(source, x -> {}, a, b);
    BalancerRetryTest.awaitConnected(balancer, 1);
    Recorder stream = new Recorder();
    balancer.requestStream(request("live"), 1, stream);
    await("the stream reached A", () -> a.handles.size() == 1);
    source.update(List.of(b.address));
    balancer.servers(); // a barrier: the balancer took the new set, drained A, connected B
    FakeServer.LOOP.submit(() -> {}).get(10, TimeUnit.SECONDS); // A's close ran on its loop
    FakeServer.Connection ca = a.last;
    assertThat(ca.isOpen()).as("A's connection is closing").isFalse();
    assertThat(balancer.retained().servers()).isEqualTo(1);
    assertThat(balancer.retained().connections()).as("B's and A's closing one").isEqualTo(2);
    balancer.dispose();
    balancer.onClose().get(10, TimeUnit.SECONDS);
    assertThat(ca.disposed).as("dispose() cut the drained server's connection").isTrue();
    assertThat(balancer.retained().connections()).isZero();
  }

  /** An aperture widened past an ejected server narrows again once it answers. */
  @Test
  void anApertureWidenedByAnEjectionNarrowsWhenTheServerRecovers() throws Exception {
    FakeServer[] all = new FakeServer[4];
    for (int i = 0; i < all.length; i++) {
      all[i] = new FakeServer(i + 1, FakeServer.answering("S" + (i + 1)));
    }
    Balancer balancer = balancer(fixed(all), x -> x.aperture(2).failureThreshold(1), all);
    BalancerRetryTest.awaitConnected(balancer, 2);
    assertThat(balancer.retained().servers()).isEqualTo(2);
    SocketAddress first = balancer.servers().get(0).address();
    FakeServer x = null;
    for (FakeServer s : all) {
      if (s.address.equals(first)) {
        x = s;
      }
    }
    FakeServer victim = x;
    victim.script =
        (kind, req, l, s) -> {
          req.release();
          FakeServer.LOOP.execute(
              () -> l.onError(new ConnectionErrorException("connection closed by the peer")));
        };
    for (int i = 0; i < 1000 && balancer.retained().servers() == 2; i++) {
      rr(balancer, "x", new ArrayList<>());
      balancer.servers(); // a barrier for the ejection's reconcile
    }
    assertThat(balancer.retained().servers()).as("widened past the ejected server").isEqualTo(3);
    victim.script = FakeServer.answering("back");
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 5000 && !answers.contains("back"); i++) {
      rr(balancer, "x", answers);
    }
    assertThat(answers).contains("back");
    await("narrowed to 2 again", () -> balancer.retained().servers() == 2);
  }

  /**
   * A new server whose first call is a stream that has not delivered anything (a subscription)
   * still gets request-responses, and the stream's wait is no latency sample.
   */
  @Test
  void aNewServerWhoseFirstCallIsALongStreamStillGetsRequests() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer n = new FakeServer(2, holdingStreams("N"));
    ManualAddressSource source = AddressSource.manual();
    source.update(List.of(a.address));
    Balancer balancer = balancer(source, x -> {}, a, n);
    BalancerRetryTest.awaitConnected(balancer, 1);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      assertThat(rr(balancer, "x", answers)).isNull(); // A is measured
    }
    source.update(List.of(a.address, n.address));
    BalancerRetryTest.awaitConnected(balancer, 2);
    // The new server is costed like a measured one of the fleet's typical latency: the first
    // subscription may land on either server, so subscribe until one is on the new server.
    List<io.sluice.StreamHandle> subscriptions = new ArrayList<>();
    for (int i = 0; i < 200 && streamsOn(n) == 0; i++) {
      subscriptions.add(balancer.requestStream(request("events"), 1, new Recorder()));
      int sent = i + 1;
      await("the subscription reached a server", () -> streamsOn(a) + streamsOn(n) == sent);
    }
    assertThat(streamsOn(n)).as("subscriptions on the new server").isEqualTo(1);
    answers.clear();
    for (int i = 0; i < 50; i++) {
      assertThat(rr(balancer, "x", answers)).isNull();
    }
    assertThat(answers).contains("N");
    subscriptions.forEach(io.sluice.StreamHandle::cancel);
  }

  /** The streams {@code s} was sent (request-streams, not request-responses). */
  private static int streamsOn(FakeServer s) {
    return (int) s.handles.stream().filter(h -> h.kind.equals("stream")).count();
  }

  /** Sends {@code count} request-streams at once (none answered): their handles. */
  private static List<io.sluice.StreamHandle> streams(Balancer b, int count) {
    List<io.sluice.StreamHandle> handles = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      handles.add(b.requestStream(request("s" + i), 1, new Recorder()));
    }
    return handles;
  }

  /**
   * A new server that only ever gets streams (no answer measures it) is costed in the units of the
   * measured ones: new streams are shared between it and a measured server, not all sent to it
   * (its cost was its count of calls in flight, next to the measured server's nanoseconds).
   */
  @Test
  void anUnmeasuredServerIsNotPickedForEveryStream() throws Exception {
    FakeServer a = new FakeServer(1, holdingStreams("A"));
    FakeServer n = new FakeServer(2, holdingStreams("N"));
    ManualAddressSource source = AddressSource.manual();
    source.update(List.of(a.address));
    Balancer balancer = balancer(source, x -> {}, a, n);
    BalancerRetryTest.awaitConnected(balancer, 1);
    for (int i = 0; i < 20; i++) {
      assertThat(rr(balancer, "x", new ArrayList<>())).isNull(); // A is measured
    }
    source.update(List.of(a.address, n.address));
    BalancerRetryTest.awaitConnected(balancer, 2);
    List<io.sluice.StreamHandle> handles = streams(balancer, 40);
    await("40 streams reached the servers", () -> streamsOn(a) + streamsOn(n) == 40);
    assertThat(streamsOn(a)).as("streams on the measured server of 40").isGreaterThanOrEqualTo(10);
    assertThat(streamsOn(n)).as("streams on the new server of 40").isGreaterThanOrEqualTo(10);
    handles.forEach(io.sluice.StreamHandle::cancel);
  }

  /**
   * A new server whose first request-response (its probe) is still unanswered is not shut out:
   * once the measured server has as many calls in flight, the new one gets its share (it cost a
   * penalty that no count of calls on a measured server could reach).
   */
  @Test
  void anUnmeasuredServerWithItsFirstAnswerOutstandingStillGetsCalls() throws Exception {
    FakeServer.Script holding = (kind, req, l, s) -> req.release(); // never answers
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer n = new FakeServer(2, holding);
    ManualAddressSource source = AddressSource.manual();
    source.update(List.of(a.address));
    Balancer balancer = balancer(source, x -> {}, a, n);
    BalancerRetryTest.awaitConnected(balancer, 1);
    for (int i = 0; i < 20; i++) {
      assertThat(rr(balancer, "x", new ArrayList<>())).isNull(); // A is measured
    }
    a.script = holding; // from now on A's calls stay in flight too
    int before = a.calls.get();
    source.update(List.of(a.address, n.address));
    BalancerRetryTest.awaitConnected(balancer, 2);
    List<io.sluice.StreamHandle> handles = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      handles.add(balancer.requestResponse(request("r" + i), new Recorder()));
    }
    await("40 calls reached the servers", () -> a.calls.get() - before + n.calls.get() == 40);
    assertThat(n.calls.get()).as("calls on the new server of 40").isGreaterThanOrEqualTo(10);
    assertThat(a.calls.get() - before).as("calls on the measured server of 40").isGreaterThanOrEqualTo(10);
    handles.forEach(io.sluice.StreamHandle::cancel);
  }

  /**
   * A connection that refuses a request from its queue of commands (not while it is handed over)
   * because it is closing: never sent, so retried even when not idempotent, and no failure.
   */
  @Test
  void aRequestRefusedFromTheConnectionsQueueIsRetried() throws Exception {
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              FakeServer.LOOP.execute(
                  () ->
                      l.onError(
                          ConnectionCloseException.notSent("connection is closing; no new requests")));
            });
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(fixed(a, b), x -> {}, a, b);
    BalancerRetryTest.awaitConnected(balancer, 2);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      assertThat(rr(balancer, "x", answers)).isNull();
    }
    assertThat(answers).hasSize(40).containsOnly("B");
    assertThat(a.calls.get()).isPositive();
    assertThat(balancer.servers().stream().mapToInt(Balancer.ServerStatus::failures).sum())
        .isZero();
  }

  /** More requests waiting for a first server than maxPending: the extra ones fail at once. */
  @Test
  void requestsBeyondMaxPendingAreRejectedAtOnce() throws Exception {
    FakeServer never = new FakeServer(9, FakeServer.answering("never"));
    Balancer balancer =
        Balancer.builder()
            .addresses(fixed(never))
            .connector(a -> new java.util.concurrent.CompletableFuture<>()) // never connects
            .maxPending(2)
            .waitForServer(Duration.ofMinutes(1))
            .build();
    balancers.add(balancer);
    Recorder first = new Recorder();
    Recorder second = new Recorder();
    io.sluice.StreamHandle h1 = balancer.requestResponse(request("1"), first);
    io.sluice.StreamHandle h2 = balancer.requestResponse(request("2"), second);
    await("two waiting", () -> balancer.retained().pending() == 2);
    Recorder third = new Recorder();
    balancer.requestResponse(request("3"), third);
    assertThat(third.await())
        .isInstanceOf(io.sluice.exceptions.RejectedException.class)
        .hasMessageContaining("too many requests waiting")
        .hasMessageContaining("maxPending");
    assertThat(first.done).isNotDone();
    h1.cancel();
    h2.cancel();
    await("none waiting", () -> balancer.retained().pending() == 0);
  }

  /**
   * A server avoided for being slow gets requests again once its latency average has decayed
   * (latencyDecay), and is avoided again when it is still slow.
   */
  @Test
  void aSlowServerIsTriedAgainAfterItsLatencyDecays() throws Exception {
    FakeServer fast = new FakeServer(1, FakeServer.answering("fast"));
    FakeServer slow =
        new FakeServer(
            2,
            (kind, req, l, s) -> {
              req.release();
              FakeServer.LOOP.schedule(
                  () -> {
                    l.onNext(Message.utf8("slow"));
                    l.onComplete();
                  },
                  20,
                  TimeUnit.MILLISECONDS);
            });
    Balancer balancer =
        balancer(fixed(fast, slow), x -> x.latencyDecay(Duration.ofMillis(20)), fast, slow);
    BalancerRetryTest.awaitConnected(balancer, 2);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 200_000 && slow.calls.get() < 4; i++) {
      assertThat(rr(balancer, "x", answers)).isNull();
    }
    assertThat(slow.calls.get()).as("tries of the slow server").isGreaterThanOrEqualTo(4);
    assertThat(fast.calls.get()).isGreaterThan(slow.calls.get());
  }

  /**
   * servers() answers while the control executor is busy for longer than its wait: a connector
   * whose call takes long (a first connect sets up netty's event loops, its DNS configuration and
   * loads their classes on the control executor: 1 to 1.5 s measured at a load average of 35, the
   * cause of BalancerProcessTest's "the balancer's executor did not answer"). It used to throw.
   */
  @Test
  void serversAnswersWhileTheControlExecutorIsBusyWithASlowConnector() throws Exception {
    java.util.concurrent.CountDownLatch inConnector = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    Balancer balancer =
        Balancer.builder()
            .addresses(fixed(a))
            .connector(
                address -> {
                  inConnector.countDown();
                  try {
                    release.await(60, TimeUnit.SECONDS); // bounded: the test releases it
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return a.connect();
                })
            .build();
    balancers.add(balancer);
    try {
      assertThat(inConnector.await(30, TimeUnit.SECONDS)).isTrue();
      List<Balancer.ServerStatus> busy = balancer.servers(); // waits its 5 s, then answers
      assertThat(busy).hasSize(1);
      assertThat(busy.get(0).address()).isEqualTo(a.address);
      assertThat(busy.get(0).state()).isEqualTo("connecting");
    } finally {
      release.countDown();
    }
    BalancerRetryTest.awaitConnected(balancer, 1);
    assertThat(balancer.servers().get(0).state()).isEqualTo("connected");
  }

  /**
   * A drained connection's stream cut later (the server ended its drain) says nothing against a
   * server whose newer connection works: no failure is counted, and with a threshold of one the
   * working connection is not ejected.
   */
  @Test
  void aFailureOnADrainedConnectionIsNotCountedAgainstAServerThatWorks() throws Exception {
    List<io.sluice.StreamListener> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              if (kind.equals("rr")) {
                l.onNext(Message.utf8("A"));
                l.onComplete();
              } else {
                held.add(l);
              }
            });
    a.holdClose = true;
    Balancer balancer = balancer(fixed(a), x -> x.failureThreshold(1), a);
    BalancerRetryTest.awaitConnected(balancer, 1);
    assertThat(rr(balancer, "x", new ArrayList<>())).as("connection 1 works").isNull();
    Recorder stream = new Recorder();
    balancer.requestStream(request("live"), 1, stream);
    await("the stream reached the server", () -> held.size() == 1);
    FakeServer.Connection c1 = a.last;
    c1.startClosing(); // the server drains connection 1
    await("a second connection", () -> a.last != c1);
    FakeServer.Connection c2 = a.last;
    BalancerRetryTest.awaitConnected(balancer, 1);
    assertThat(rr(balancer, "x", new ArrayList<>())).as("the new connection works").isNull();
    FakeServer.LOOP
        .submit(
            () -> { // the drain ends: the server cuts connection 1 and its stream
              held.get(0).onError(new ConnectionErrorException("connection closed by the peer"));
              c1.fail();
            })
        .get(10, TimeUnit.SECONDS);
    assertThat(stream.await()).isInstanceOf(ConnectionErrorException.class);
    balancer.servers(); // a barrier: the balancer's executor took the close of connection 1
    Balancer.ServerStatus status = balancer.servers().get(0);
    assertThat(status.failures()).as("failures counted").isZero();
    assertThat(status.state()).isEqualTo("connected");
    assertThat(a.last).as("no reconnect").isSameAs(c2);
    assertThat(c2.isOpen()).as("the working connection kept").isTrue();
  }
}
