package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

  @Test
  void advancingFromTheLoopIsRefused() {
    Throwable t =
        loop.submit(() -> loop.advanceMillis(1)).awaitUninterruptibly().cause();
    assertThat(t).isInstanceOf(IllegalStateException.class);
  }
}
