package io.sluice.lease.adaptive;

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
import io.sluice.exceptions.RejectedException;
import io.sluice.lease.LeaseGrants;
import io.sluice.transport.local.LocalTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The adaptive policy in a real server (the engine of sluice-core over the in-JVM transport): the
 * client waits for its first grant, the policy counts the server's calls, a rank above the admitted
 * one is REJECTED without reaching the handler, the grants tell the client which ranks are shed,
 * and a closed connection is forgotten. Waits for events, never for a time.
 */
class AdaptiveLeasePolicyEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Requests whose data starts with 'h' are held open until released; others answered at once. */
  private final List<StreamHandle> held = new CopyOnWriteArrayList<>();
  private final List<String> handled = new CopyOnWriteArrayList<>();
  private SluiceServer server;
  private Requester client;

  private final Responder responder =
      new Responder() {
        @Override
        public StreamListener requestResponse(Message request, StreamHandle response) {
          String data = request.dataUtf8();
          request.release();
          handled.add(data);
          if (data.startsWith("h")) {
            held.add(response);
          } else {
            response.nextAndComplete(Message.utf8(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, "ok:" + data));
          }
          return StreamListener.DISCARDING;
        }
      };

  @AfterEach
  void close() {
    if (client != null) {
      client.dispose();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The rank of the test's requests: the digit at the end of their data. */
  private static int rankOf(Message m) {
    String d = m.dataUtf8();
    return d.charAt(d.length() - 1) - '0';
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Polls for a condition the system reaches by itself (a tick, a close); fails after WAIT. */
  private static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("never: " + what);
      }
      Thread.sleep(5);
    }
  }

  private CompletableFuture<String> call(String data) {
    CompletableFuture<String> result = new CompletableFuture<>();
    client.requestResponse(
        Message.utf8(client.alloc(), data),
        new StreamListener() {
          @Override
          public void onNext(Message message) {
            result.complete(message.dataUtf8());
            message.release();
          }

          @Override
          public void onComplete() {
            result.complete(null);
          }

          @Override
          public void onError(Throwable cause) {
            result.completeExceptionally(cause);
          }
        });
    return result;
  }

  @Test
  void ranksAboveTheAdmittedOneAreRejectedBeforeTheHandlerAndTheGrantsSaySo() throws Exception {
    // A limit of 10 that cannot move; 3 ranks from half of it: rank 2 is shed from 6.67 calls in
    // flight, rank 1 from 8.33.
    AdaptiveLeasePolicy policy =
        AdaptiveLeasePolicy.builder()
            .initialLimit(10).minLimit(10).maxLimit(10)
            .ranks(3, AdaptiveLeasePolicyEndToEndTest::rankOf)
            .sampleWindow(Duration.ofMillis(10))
            .build();
    String name = "adaptive-lease-e2e-" + System.nanoTime();
    server =
        await(
            Connections.start(
                LocalTransport.server(name),
                ConnectionOptions.builder().leasePolicy(policy).build(),
                (setup, requester) -> responder));
    client =
        await(
            Connections.connect(
                LocalTransport.client(name),
                ConnectionOptions.builder().lease(true).build(),
                ClientSetup.defaults(),
                r -> new Responder() {}));
    assertThat(policy.stats().connections()).isEqualTo(1);
    assertThat(client.availability()).isPositive();
    assertThat(client.availability(2)).isPositive();

    assertThat(await(call("a2"))).isEqualTo("ok:a2");
    List<CompletableFuture<String>> holding = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      holding.add(call("h0"));
    }
    until("7 calls in flight", () -> policy.stats().inFlight() == 7);
    assertThat(policy.stats().admittedMaxRank()).isEqualTo(1);

    int handledBefore = handled.size();
    assertThatRejected(call("b2"));
    assertThat(handled).hasSize(handledBefore); // the handler never saw it
    assertThat(await(call("c1"))).isEqualTo("ok:c1");
    assertThat(await(call("d0"))).isEqualTo("ok:d0");
    assertThat(policy.stats().rejected()).isEqualTo(1);
    // The next tick's grant carries maxRank 1: the client sees rank 2 unavailable before sending.
    until("the client told rank 2 is shed", () -> client.availability(2) == 0);
    assertThat(client.availability(1)).isPositive();
    assertThat(client.availability(0)).isPositive();

    for (StreamHandle h : held) {
      h.nextAndComplete(Message.utf8(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, "done"));
    }
    for (CompletableFuture<String> f : holding) {
      assertThat(await(f)).isEqualTo("done");
    }
    until("nothing in flight", () -> policy.stats().inFlight() == 0);
    assertThat(policy.stats().admittedMaxRank()).isEqualTo(LeaseGrants.ALL_RANKS);
    until("the client told every rank is back", () -> client.availability(2) > 0);
    assertThat(await(call("e2"))).isEqualTo("ok:e2");
    assertThat(policy.stats().started()).isEqualTo(1 + 7 + 2 + 1);

    client.dispose();
    until("the connection forgotten", () -> policy.stats().connections() == 0);
  }

  @Test
  void handlersThatNeverAnswerHoldNoMoreThanTheLimitInFlight() throws Exception {
    // A limit of 10 that cannot move, one rank. Every call hangs in its handler: the 11th and
    // later are REJECTED before any handler sees them, and once the hanging calls end the
    // server takes calls on again.
    AdaptiveLeasePolicy policy =
        AdaptiveLeasePolicy.builder()
            .initialLimit(10).minLimit(10).maxLimit(10)
            .sampleWindow(Duration.ofMillis(10))
            .build();
    String name = "adaptive-lease-hung-" + System.nanoTime();
    server =
        await(
            Connections.start(
                LocalTransport.server(name),
                ConnectionOptions.builder().leasePolicy(policy).build(),
                (setup, requester) -> responder));
    client =
        await(
            Connections.connect(
                LocalTransport.client(name),
                ConnectionOptions.builder().lease(true).build(),
                ClientSetup.defaults(),
                r -> new Responder() {}));
    List<CompletableFuture<String>> calls = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      calls.add(call("h" + i));
    }
    int rejected = 0;
    for (CompletableFuture<String> f : calls.subList(10, 30)) {
      assertThatRejected(f);
      rejected++;
    }
    assertThat(rejected).isEqualTo(20);
    assertThat(handled).hasSize(10);
    assertThat(held).hasSize(10);
    assertThat(policy.stats().inFlight()).isEqualTo(10);
    until("the client told the server takes no more", () -> client.availability() == 0);

    for (StreamHandle h : held) {
      h.nextAndComplete(Message.utf8(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, "done"));
    }
    for (CompletableFuture<String> f : calls.subList(0, 10)) {
      assertThat(await(f)).isEqualTo("done");
    }
    until("granted again", () -> client.availability() > 0);
    assertThat(await(call("after"))).isEqualTo("ok:after");

    // The tick runs on a thread of its own, not on an event loop; with no leasing connection
    // left, that thread ends by itself.
    assertThat(tickThreads()).isPositive();
    client.dispose();
    until("the connection forgotten", () -> policy.stats().connections() == 0);
    until("no tick thread left", () -> tickThreads() == 0);
  }

  private static long tickThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals("sluice-lease-tick"))
        .count();
  }

  private static void assertThatRejected(CompletableFuture<String> f) throws InterruptedException {
    try {
      f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("accepted: " + f);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(RejectedException.class);
    } catch (TimeoutException e) {
      throw new AssertionError("neither answered nor rejected", e);
    }
  }
}
