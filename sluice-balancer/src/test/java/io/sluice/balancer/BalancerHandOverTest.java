package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.exceptions.RejectedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the caller does while an attempt's request is being handed over to its connection (on the
 * connection's loop, from the caller's thread): demand, errors and cancels reach the stream that
 * hand-over opens, none is lost and none throws. The fake connections record what their streams
 * got ({@link FakeServer.Handle}).
 */
class BalancerHandOverTest {
  private final List<Balancer> balancers = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (Balancer b : balancers) {
      b.dispose();
      b.onClose().get(10, TimeUnit.SECONDS);
    }
  }

  private Balancer balancer(FakeServer... servers) throws Exception {
    List<java.net.SocketAddress> addresses = new ArrayList<>();
    for (FakeServer s : servers) {
      addresses.add(s.address);
    }
    Balancer b =
        Balancer.builder()
            .addresses(AddressSource.fixed(addresses))
            .connector(
                a -> {
                  for (FakeServer s : servers) {
                    if (s.address.equals(a)) {
                      return s.connect();
                    }
                  }
                  throw new IllegalStateException("no fake at " + a);
                })
            .backoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .failureThreshold(1_000_000)
            .build();
    balancers.add(b);
    BalancerRetryTest.awaitConnected(b, servers.length);
    return b;
  }

  private static Message request() {
    return Message.of(Unpooled.copiedBuffer(new byte[] {1}));
  }

  /** Waits until every task queued on the fakes' loop before now has run. */
  private static void barrier() throws Exception {
    FakeServer.LOOP.submit(() -> {}).get(10, TimeUnit.SECONDS);
  }

  /** A stretch of the loop's time inside the connection's requestStream, 0 to 20 µs. */
  private static void spin() {
    long end = System.nanoTime() + ThreadLocalRandom.current().nextLong(20_000);
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  private static final int ITERATIONS = 1000;

  /**
   * Calls request(1) on {@code h} until {@code started} (the connection took the request) and then
   * for 200 µs more, while the loop hands the stream over; returns the number of calls.
   */
  private static long requestWhileHandedOver(StreamHandle h, BooleanSupplier started) {
    long sent = 0;
    for (int i = 0; i < 10_000_000 && !started.getAsBoolean(); i++) {
      h.request(1);
      sent++;
    }
    long end = System.nanoTime() + 200_000;
    while (System.nanoTime() < end) {
      h.request(1);
      sent++;
    }
    return sent;
  }

  /**
   * request(1) in a tight loop from the caller while the loop hands the stream over: every one
   * reaches the stream, whether it came before the stream existed or after.
   */
  @Test
  void demandRacingTheHandOverIsNeverLost() throws Exception {
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              spin();
            });
    Balancer balancer = balancer(a);
    List<String> lost = new ArrayList<>();
    for (int i = 0; i < ITERATIONS; i++) {
      int n = i;
      StreamHandle h = balancer.requestStream(request(), 1, new Recorder());
      long sent = requestWhileHandedOver(h, () -> a.handles.size() > n);
      barrier();
      FakeServer.Handle stream = a.handles.get(i);
      if (stream.demand.get() != 1 + sent) {
        lost.add("iteration " + i + ": " + stream.demand.get() + " of " + (1 + sent));
      }
      h.cancel();
    }
    assertThat(lost).as("streams that did not get all their demand").isEmpty();
  }

  /**
   * The first attempt is REJECTED (asynchronously, as a server's refusal arrives) while the caller
   * keeps asking for more: nothing throws out of request(n), and the retry's stream gets it all.
   */
  @Test
  void demandRacingARetryNeitherThrowsNorIsLost() throws Exception {
    boolean[] first = {true}; // the fakes' loop only
    FakeServer.Script rejectFirst =
        (kind, req, l, s) -> {
          req.release();
          spin();
          if (first[0]) {
            first[0] = false;
            s.handles.get(s.handles.size() - 1).tag = "rejected";
            FakeServer.LOOP.execute(() -> l.onError(new RejectedException("no lease")));
          }
        };
    FakeServer a = new FakeServer(1, rejectFirst);
    FakeServer b = new FakeServer(2, rejectFirst);
    Balancer balancer = balancer(a, b);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < ITERATIONS; i++) {
      FakeServer.LOOP.submit(() -> first[0] = true).get(10, TimeUnit.SECONDS);
      int before = a.handles.size() + b.handles.size();
      Recorder r = new Recorder();
      StreamHandle h = balancer.requestStream(request(), 1, r);
      long sent = 0;
      try {
        // Until the retry's stream exists, and a while more.
        sent = requestWhileHandedOver(h, () -> a.handles.size() + b.handles.size() >= before + 2);
      } catch (RuntimeException e) {
        failures.add("iteration " + i + ": request(n) threw " + e);
      }
      for (int w = 0; w < 1000 && a.handles.size() + b.handles.size() < before + 2; w++) {
        barrier(); // the retry is dispatched from the loop: wait for its stream
      }
      barrier();
      FakeServer.Handle held = null;
      for (FakeServer s : new FakeServer[] {a, b}) {
        for (FakeServer.Handle x : s.handles) {
          if (x.tag == null && !x.ended()) {
            held = x;
          }
        }
      }
      if (held == null) {
        failures.add("iteration " + i + ": no retry (" + r.done.getNow(null) + ")");
      } else if (held.demand.get() != 1 + sent) {
        failures.add("iteration " + i + ": the retry got " + held.demand.get() + " of " + (1 + sent));
      }
      h.cancel();
      barrier();
    }
    assertThat(failures).isEmpty();
  }

  /**
   * The caller ends the call (an error from its outbound publisher, a cancel, a non-positive
   * request) while the loop is inside the connection's requestChannel: once the channel exists, it
   * is ended too, not left open on the server.
   */
  @Test
  void anErrorDuringTheHandOverEndsTheRemoteChannel() throws Exception {
    endsDuringHandOver(h -> h.error(new IllegalStateException("the outbound publisher failed")));
  }

  @Test
  void aNonPositiveRequestDuringTheHandOverEndsTheRemoteChannel() throws Exception {
    endsDuringHandOver(h -> h.request(0));
  }

  @Test
  void aCancelDuringTheHandOverEndsTheRemoteChannel() throws Exception {
    endsDuringHandOver(StreamHandle::cancel);
  }

  private void endsDuringHandOver(Consumer<StreamHandle> end) throws Exception {
    CountDownLatch[] entered = {null};
    CountDownLatch[] proceed = {null};
    FakeServer a =
        new FakeServer(
            1,
            (kind, req, l, s) -> {
              req.release();
              entered[0].countDown();
              try {
                proceed[0].await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    Balancer balancer = balancer(a);
    for (int i = 0; i < 20; i++) {
      entered[0] = new CountDownLatch(1);
      proceed[0] = new CountDownLatch(1);
      Recorder r = new Recorder();
      StreamHandle h = balancer.requestChannel(request(), false, 1, r);
      assertThat(entered[0].await(10, TimeUnit.SECONDS)).isTrue();
      end.accept(h); // the loop is inside requestChannel: the stream does not exist yet
      proceed[0].countDown();
      barrier();
      FakeServer.Handle channel = a.handles.get(i);
      assertThat(channel.ended()).as("channel %d canceled or failed", i).isTrue();
      assertThat(balancer.servers().get(0).inflight()).isZero();
    }
  }
}
