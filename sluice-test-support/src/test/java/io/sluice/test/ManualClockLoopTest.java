package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ManualClockLoopTest {
  private final ManualClockLoop loop = new ManualClockLoop();

  @AfterEach
  void stop() throws InterruptedException {
    assertThat(loop.shutdownGracefully(2, 15, TimeUnit.SECONDS).await(20, TimeUnit.SECONDS))
        .as("terminated")
        .isTrue();
  }

  @Test
  void timersFireOnlyWhenTheClockReachesThem() {
    AtomicInteger once = new AtomicInteger();
    AtomicInteger periodic = new AtomicInteger();
    long start = loop.clockNanos();
    loop.schedule(once::incrementAndGet, 1, TimeUnit.SECONDS);
    loop.scheduleAtFixedRate(periodic::incrementAndGet, 100, 100, TimeUnit.MILLISECONDS);

    loop.advanceMillis(999);
    assertThat(once).hasValue(0);
    assertThat(periodic).hasValue(9); // each period that passed, as netty's fixed-rate timers
    loop.advanceMillis(1);
    assertThat(once).hasValue(1);
    assertThat(periodic).hasValue(10);
    assertThat(loop.clockNanos() - start).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(loop.submit(() -> loop.ticker().nanoTime()).syncUninterruptibly().getNow())
        .isEqualTo(loop.clockNanos());
  }

  /**
   * The loop is busy as the clock moves: it finds the timer due only after advance queued its first
   * check, and puts the timer behind that check. advance must still wait for the timer. The order
   * is forced, not left to chance: the busy task ends only once advance's check is queued, and a
   * task queued behind the check (ahead of the timer) holds the timer back until advance either
   * returned or queued a second check.
   */
  @Test
  void advanceWaitsForATimerTheBusyLoopQueuedBehindItsCheck() throws Exception {
    AtomicInteger fired = new AtomicInteger();
    AtomicBoolean advanceReturned = new AtomicBoolean();
    loop.schedule(fired::incrementAndGet, 10, TimeUnit.MILLISECONDS);
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean checkQueued = new AtomicBoolean();
    loop.execute(
        () -> {
          busy.countDown();
          awaitUninterruptibly(release);
        });
    assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
    Thread helper =
        new Thread(
            () -> {
              checkQueued.set(until(() -> loop.pendingTasks() >= 1));
              // Behind advance's check, ahead of the timer the loop will queue when it is free.
              loop.execute(
                  () -> until(() -> advanceReturned.get() || loop.pendingTasks() >= 2));
              release.countDown();
            });
    helper.start();
    loop.advanceMillis(10);
    int firedWhenAdvanceReturned = fired.get();
    advanceReturned.set(true);
    helper.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(checkQueued).as("advance queued its check while the loop was busy").isTrue();
    assertThat(firedWhenAdvanceReturned).as("the due timer ran before advance returned").isEqualTo(1);
  }

  /** Spins until {@code condition} holds; false if it did not within 10 s (a hang guard). */
  private static boolean until(BooleanSupplier condition) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        return false;
      }
      Thread.onSpinWait();
    }
    return true;
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void advancingFromTheLoopIsRefused() {
    Throwable t =
        loop.submit(() -> loop.advanceMillis(1)).awaitUninterruptibly().cause();
    assertThat(t).isInstanceOf(IllegalStateException.class);
  }
}
