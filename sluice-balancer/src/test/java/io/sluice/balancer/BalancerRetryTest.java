package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The balancer's choices and retry rules against scripted servers ({@link FakeServer}): what is
 * retried, what never is, where requests go, and that each request is released exactly once.
 */
class BalancerRetryTest {
  private final List<Balancer> balancers = new ArrayList<>();
  private final List<Message> requests = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (Balancer b : balancers) {
      b.dispose();
      b.onClose().get(java.util.concurrent.TimeUnit.SECONDS.toMillis(10), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
    for (Message m : requests) {
      assertThat(m.refCnt()).as("request released exactly once").isZero();
    }
  }

  /** A pooled request (tracked by the leak detector), checked for release after the test. */
  private Message request(String text) {
    ByteBuf data = PooledByteBufAllocator.DEFAULT.directBuffer();
    data.writeCharSequence(text, StandardCharsets.UTF_8);
    Message m = Message.of(data);
    requests.add(m);
    return m;
  }

  private Balancer balancer(Consumer<Balancer.Builder> options, FakeServer... servers)
      throws Exception {
    Map<SocketAddress, FakeServer> byAddress = new HashMap<>();
    List<SocketAddress> addresses = new ArrayList<>();
    for (FakeServer s : servers) {
      byAddress.put(s.address, s);
      addresses.add(s.address);
    }
    Balancer.Builder b =
        Balancer.builder()
            .addresses(AddressSource.fixed(addresses))
            .connector(a -> byAddress.get(a).connect())
            .backoff(Duration.ofMillis(5), Duration.ofMillis(20));
    options.accept(b);
    Balancer balancer = b.build();
    balancers.add(balancer);
    awaitConnected(balancer, servers.length);
    return balancer;
  }

  static void awaitConnected(Balancer balancer, int servers) throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      if (balancer.servers().stream().filter(s -> s.state().equals("connected")).count()
          == servers) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("not connected: " + balancer.servers());
  }

  private static Throwable rr(Balancer b, Message request, List<String> answers) throws Exception {
    Recorder r = new Recorder();
    b.requestResponse(request, r);
    Throwable e = r.await();
    answers.addAll(r.messages);
    return e;
  }

  @Test
  void rejectedRequestsAreRetriedOnAnotherServer() throws Exception {
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              FakeServer.LOOP.execute(() -> l.onError(new RejectedException("no lease")));
            });
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> {}, a, b);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      assertThat(rr(balancer, request("hi"), answers)).isNull();
    }
    assertThat(answers).hasSize(50).containsOnly("B");
    assertThat(a.calls.get()).isPositive();
    assertThat(b.calls.get()).isEqualTo(50);
  }

  @Test
  void requestsNeverSentAreRetriedEvenWhenNotIdempotent() throws Exception {
    // The connection refuses while the request is handed over (it is closing): nothing was sent.
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              l.onError(ConnectionCloseException.notSent("connection is closing; no new requests"));
            });
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> {}, a, b);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      assertThat(rr(balancer, request("hi"), answers)).isNull();
    }
    assertThat(answers).hasSize(50).containsOnly("B");
    assertThat(a.calls.get()).isPositive();
  }

  /** The connection fails after the request left: it may have been processed. */
  private static final FakeServer.Script LOST_AFTER_SENDING =
      (kind, req, l, s) -> {
        req.release();
        FakeServer.LOOP.execute(
            () -> l.onError(new ConnectionErrorException("connection closed by the peer")));
      };

  @Test
  void aConnectionErrorAfterSendingFailsANonIdempotentRequestClearly() throws Exception {
    FakeServer a = new FakeServer(1, LOST_AFTER_SENDING);
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> x.failureThreshold(1000), a, b);
    int failed = 0;
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      Throwable e = rr(balancer, request("hi"), answers);
      if (e != null) {
        failed++;
        assertThat(e)
            .isInstanceOf(ConnectionErrorException.class)
            .hasMessageContaining("fake:1")
            .hasMessageContaining("connection closed by the peer")
            .hasMessageContaining("not marked idempotent");
      }
    }
    assertThat(failed).isPositive().isEqualTo(a.calls.get()); // each failure: one attempt, on A
    assertThat(answers).hasSize(40 - failed).containsOnly("B");
    assertThat(a.calls.get() + b.calls.get()).isEqualTo(40); // no request was sent twice
  }

  @Test
  void aConnectionErrorBeforeAnyAnswerIsRetriedForIdempotentRequests() throws Exception {
    FakeServer a = new FakeServer(1, LOST_AFTER_SENDING);
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer =
        balancer(x -> x.retryable(m -> m.dataUtf8().startsWith("idem")).failureThreshold(1000), a, b);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      assertThat(rr(balancer, request("idem-" + i), answers)).isNull();
    }
    assertThat(answers).hasSize(40).containsOnly("B");
    assertThat(a.calls.get()).isPositive();
  }

  @Test
  void fireAndForgetIsNeverRetried() throws Exception {
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              l.onError(new RejectedException("no lease")); // even refused before sending
            });
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> x.retryable(m -> true), a, b);
    int errors = 0;
    for (int i = 0; i < 40; i++) {
      Recorder r = new Recorder();
      balancer.fireAndForget(request("fnf"), r);
      if (r.await() != null) {
        errors++;
      }
    }
    assertThat(errors).isEqualTo(a.calls.get());
    assertThat(a.calls.get() + b.calls.get()).isEqualTo(40);
  }

  @Test
  void aStreamThatDeliveredAMessageIsNeverRetried() throws Exception {
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              FakeServer.LOOP.execute(
                  () -> {
                    l.onNext(Message.utf8("a-0"));
                    l.onError(new ConnectionErrorException("connection closed by the peer"));
                  });
            });
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> x.retryable(m -> true).failureThreshold(1000), a, b);
    int onA = 0;
    for (int i = 0; i < 40; i++) {
      Recorder r = new Recorder();
      balancer.requestStream(request("s"), 8, r);
      Throwable e = r.await();
      if (e != null) {
        onA++;
        assertThat(r.messages).containsExactly("a-0");
        assertThat(e).isInstanceOf(ConnectionErrorException.class);
      } else {
        assertThat(r.messages).containsExactly("B");
      }
    }
    assertThat(onA).isPositive().isEqualTo(a.calls.get());
    assertThat(a.calls.get() + b.calls.get()).isEqualTo(40);
  }

  @Test
  void attemptsAreBounded() throws Exception {
    FakeServer.Script reject =
        (kind, req, l, s) -> {
          req.release();
          FakeServer.LOOP.execute(() -> l.onError(new RejectedException("no lease")));
        };
    FakeServer[] all = new FakeServer[5];
    for (int i = 0; i < all.length; i++) {
      all[i] = new FakeServer(i + 1, reject);
    }
    Balancer balancer = balancer(x -> x.maxAttempts(3), all);
    Throwable e = rr(balancer, request("x"), new ArrayList<>());
    assertThat(e).isInstanceOf(RejectedException.class).hasMessageContaining("rejected by every server tried");
    int calls = 0;
    for (FakeServer s : all) {
      calls += s.calls.get();
    }
    assertThat(calls).isEqualTo(3);
  }

  @Test
  void aServerWithoutAvailabilityGetsNothingWhileAnotherHasSome() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    FakeServer c = new FakeServer(3, FakeServer.answering("C"));
    a.availability = 0;
    Balancer balancer = balancer(x -> {}, a, b, c);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      assertThat(rr(balancer, request("x"), answers)).isNull();
    }
    assertThat(a.calls.get()).isZero();
    assertThat(answers).contains("B", "C");
    assertThat(balancer.availability()).isEqualTo(1.0);

    // None has any: fail at once, clearly, rather than wait.
    b.availability = 0;
    c.availability = 0;
    assertThat(balancer.availability()).isZero();
    Throwable e = rr(balancer, request("x"), answers);
    assertThat(e)
        .isInstanceOf(RejectedException.class)
        .hasMessageContaining("no server has lease availability")
        .hasMessageContaining("fake:2");
    assertThat(a.calls.get() + b.calls.get() + c.calls.get()).isEqualTo(300);
  }

  @Test
  void aServerThatRefusesARankGetsNoneOfThatRank() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    a.maxRank = 0; // sheds every rank but the highest
    Balancer balancer =
        balancer(x -> x.rankOf(m -> m.dataUtf8().startsWith("low") ? 5 : 0), a, b);
    List<String> low = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      assertThat(rr(balancer, request("low"), low)).isNull();
    }
    assertThat(low).containsOnly("B");
    assertThat(balancer.availability(5)).isEqualTo(1.0);
    b.availability = 0.5;
    assertThat(balancer.availability()).isEqualTo(1.0); // the best of the servers
    assertThat(balancer.availability(5)).isEqualTo(0.5);
  }

  @Test
  void withNoServerARequestWaitsThenFailsNamingTheServers() throws Exception {
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(new FakeServer(7, null).address))
            .connector(a -> CompletableFuture.failedFuture(new ConnectException("Connection refused")))
            .backoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .waitForServer(Duration.ofMillis(300))
            .build();
    balancers.add(balancer);
    Throwable e = rr(balancer, request("x"), new ArrayList<>());
    assertThat(e)
        .isInstanceOf(ConnectionErrorException.class)
        .hasMessageContaining("no server connected within 300 ms")
        .hasMessageContaining("fake:7")
        .hasMessageContaining("Connection refused");
    assertThat(balancer.retained().pending()).isZero();
  }

  @Test
  void aRequestWaitsForTheFirstConnection() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    CompletableFuture<Void> go = new CompletableFuture<>();
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(a.address))
            .connector(x -> go.thenCompose(v -> a.connect()))
            .build();
    balancers.add(balancer);
    Recorder r = new Recorder();
    balancer.requestResponse(request("x"), r);
    StreamHandle canceled = balancer.requestResponse(request("y"), new Recorder());
    canceled.cancel();
    assertThat(r.done).isNotDone();
    go.complete(null);
    assertThat(r.await()).isNull();
    assertThat(r.messages).containsExactly("A");
    assertThat(a.calls.get()).isEqualTo(1); // the canceled one was never sent
  }

  @Test
  void consecutiveConnectFailuresEjectAndAReconnectProbesBack() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    CompletableFuture<Void> up = new CompletableFuture<>();
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(a.address))
            .connector(
                x ->
                    up.isDone()
                        ? a.connect()
                        : CompletableFuture.failedFuture(new ConnectException("Connection refused")))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(10))
            .failureThreshold(3)
            .build();
    balancers.add(balancer);
    for (int i = 0; i < 1000 && !balancer.servers().get(0).state().equals("ejected"); i++) {
      Thread.sleep(5);
    }
    assertThat(balancer.servers().get(0).state()).isEqualTo("ejected");
    up.complete(null);
    for (int i = 0; i < 1000 && !balancer.servers().get(0).state().equals("probing"); i++) {
      Thread.sleep(5);
    }
    assertThat(balancer.servers().get(0).state()).isEqualTo("probing");
    List<String> answers = new ArrayList<>();
    assertThat(rr(balancer, request("x"), answers)).isNull();
    assertThat(balancer.servers().get(0).state()).isEqualTo("connected");
  }

  @Test
  void aLostConnectionIsReplacedAndStateStaysBounded() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    Balancer balancer = balancer(x -> x.backoff(Duration.ofMillis(1), Duration.ofMillis(2)), a);
    List<String> answers = new ArrayList<>();
    for (int cycle = 0; cycle < 200; cycle++) {
      FakeServer.Connection c = a.last;
      c.fail();
      // A request during the gap waits for the new connection (never the lost one).
      assertThat(rr(balancer, request("x"), answers)).isNull();
      assertThat(a.last).isNotSameAs(c);
    }
    assertThat(answers).hasSize(200);
    assertThat(a.connects.get()).isGreaterThanOrEqualTo(201);
    Balancer.Retained held = balancer.retained();
    assertThat(held.servers()).isEqualTo(1);
    assertThat(held.connections()).isBetween(1, 2);
    assertThat(held.pending()).isZero();
  }

  @Test
  void addressChurnLeavesOnlyTheCurrentServers() throws Exception {
    Map<SocketAddress, FakeServer> fakes = new HashMap<>();
    Function<Integer, FakeServer> fake =
        i -> fakes.computeIfAbsent(new FakeServer(i, null).address, x -> new FakeServer(i, FakeServer.answering("S" + i)));
    ManualAddressSource source = AddressSource.manual();
    Balancer balancer =
        Balancer.builder()
            .addresses(source)
            .connector(x -> fakes.get(x).connect())
            .build();
    balancers.add(balancer);
    List<FakeServer.Connection> seen = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      FakeServer s = fake.apply(i);
      source.update(List.of(s.address, fake.apply(60_000).address));
      balancer.servers(); // a barrier: the balancer's executor has taken the new set
      List<String> answers = new ArrayList<>();
      assertThat(rr(balancer, request("x"), answers)).isNull();
      if (s.last != null) {
        seen.add(s.last);
      }
    }
    balancer.servers(); // a barrier: the closes of the servers that left are taken
    Balancer.Retained held = balancer.retained();
    assertThat(held.servers()).isEqualTo(2);
    assertThat(held.connections()).isBetween(1, 2);
    assertThat(held.pending()).isZero();
    // Every server that left was closed (drained), none was left open.
    assertThat(seen.subList(0, seen.size() - 1)).allMatch(c -> !c.isOpen());
  }

  @Test
  void aLostConnectionCountsOneFailureHoweverManyRequestsItTakesDown() throws Exception {
    List<io.sluice.StreamListener> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              held.add(l);
            });
    Balancer balancer = balancer(x -> x.failureThreshold(3), a);
    List<Recorder> calls = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Recorder r = new Recorder();
      balancer.requestResponse(request("x"), r);
      calls.add(r);
    }
    for (int i = 0; i < 1000 && held.size() < 20; i++) {
      Thread.sleep(5);
    }
    assertThat(held).hasSize(20);
    FakeServer.Connection c = a.last;
    FakeServer.LOOP.execute(
        () -> {
          held.forEach(l -> l.onError(new ConnectionErrorException("connection closed by the peer")));
          c.fail();
        });
    for (Recorder r : calls) {
      assertThat(r.await()).isInstanceOf(ConnectionErrorException.class);
    }
    Balancer.ServerStatus s = balancer.servers().get(0);
    assertThat(s.failures()).isEqualTo(1);
    assertThat(s.state()).isNotEqualTo("ejected").isNotEqualTo("probing");
  }

  @Test
  void aMetadataPushGoesToEveryServer() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> {}, a, b);
    Recorder r = new Recorder();
    ByteBuf md = PooledByteBufAllocator.DEFAULT.directBuffer().writeByte(1);
    Message push = Message.of(md, PooledByteBufAllocator.DEFAULT.directBuffer());
    requests.add(push);
    balancer.metadataPush(push, r);
    assertThat(r.await()).isNull();
    assertThat(a.pushes.get()).isEqualTo(1);
    assertThat(b.pushes.get()).isEqualTo(1);
  }

  @Test
  void aNonPositiveRequestBeforeTheStreamStartedFailsIt() throws Exception {
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(new FakeServer(9, null).address))
            .connector(x -> new CompletableFuture<>()) // never connects
            .build();
    balancers.add(balancer);
    Recorder r = new Recorder();
    StreamHandle h = balancer.requestStream(request("s"), 1, r);
    h.request(0);
    assertThat(r.await()).isInstanceOf(IllegalArgumentException.class);
    assertThat(balancer.retained().pending()).isZero();
  }

  @Test
  void closeClosesEveryConnection() throws Exception {
    FakeServer a = new FakeServer(1, FakeServer.answering("A"));
    FakeServer b = new FakeServer(2, FakeServer.answering("B"));
    Balancer balancer = balancer(x -> {}, a, b);
    Requester ca = a.last;
    Requester cb = b.last;
    balancer.close();
    balancer.onClose().get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(ca.isOpen()).isFalse();
    assertThat(cb.isOpen()).isFalse();
    assertThat(balancer.isOpen()).isFalse();
    Throwable e = rr(balancer, request("x"), new ArrayList<>());
    assertThat(e).isInstanceOf(ConnectionCloseException.class).hasMessageContaining("closed");
  }
}
