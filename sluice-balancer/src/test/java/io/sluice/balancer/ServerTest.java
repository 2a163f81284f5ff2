package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Server}'s own bookkeeping, under threads. */
class ServerTest {
  /**
   * An answer ends the consecutive failures it saw, atomically: every failure counted is either
   * ended by exactly one answer (and told to the aperture as recovered) or still counted. A
   * read-then-set lost the failures counted in between, and two answers could both end the same
   * ones: a server whose failure reached the ejection threshold (and widened the aperture) was
   * reset as if it had never been ejected, so the aperture was not narrowed again.
   */
  @Test
  void everyFailureIsEndedByOneAnswerOrStillCounted() throws Exception {
    for (int round = 0; round < 4; round++) { // bounded: four rounds of a few seconds at most
      failuresAndAnswersRace();
    }
  }

  private static void failuresAndAnswersRace() throws Exception {
    Server s = new Server(InetSocketAddress.createUnresolved("fake", 1), 1_000_000_000L);
    int threads = 3; // of each kind
    int failuresEach = 2_000_000;
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger failing = new AtomicInteger(threads);
    AtomicLong ended = new AtomicLong();
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      all.add(
          new Thread(
              () -> {
                await(go);
                for (int i = 0; i < failuresEach; i++) {
                  s.failures.incrementAndGet();
                }
                failing.decrementAndGet();
              }));
      all.add(
          new Thread(
              () -> {
                await(go);
                long sum = 0;
                // While failures are counted (bounded by their count), then once more.
                for (int i = 0; i < threads * failuresEach && failing.get() > 0; i++) {
                  sum += s.onSuccess();
                }
                ended.addAndGet(sum);
              }));
    }
    all.forEach(Thread::start);
    go.countDown();
    for (Thread t : all) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(t.isAlive()).as("a thread still running after 60 s").isFalse();
    }
    assertThat(ended.get() + s.failures.get())
        .as("failures ended by answers + still counted")
        .isEqualTo((long) threads * failuresEach);
  }

  private static void await(CountDownLatch l) {
    try {
      l.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
