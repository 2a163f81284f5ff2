package io.sluice.reactor.tck;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** The "event loop" thread of the fake streams of one subscriber TCK class. */
final class SubscriberVerifications {
  private SubscriberVerifications() {}

  static ExecutorService newLoop() {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, "fake-loop");
          t.setDaemon(true);
          return t;
        });
  }

  static void shutdown(ExecutorService loop) throws InterruptedException {
    loop.shutdown();
    loop.awaitTermination(10, TimeUnit.SECONDS);
  }
}
