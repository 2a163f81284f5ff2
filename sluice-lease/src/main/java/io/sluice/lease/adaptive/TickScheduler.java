package io.sluice.lease.adaptive;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where the ticks of {@link AdaptiveLeasePolicy} run by default: one daemon thread ({@code
 * sluice-lease-tick}) shared by every adaptive policy of the JVM, off the event loops, so that a
 * handler blocking an event loop cannot hold up the leases of the other loops' connections. The
 * thread starts with the first timer and ends one second after the last one is canceled (a server
 * with no leasing connection keeps no thread); a tick is a short computation, so one thread serves
 * many policies.
 */
final class TickScheduler {
  private TickScheduler() {}

  private static final class Holder {
    static final ScheduledExecutorService SHARED = create();

    private static ScheduledExecutorService create() {
      ScheduledThreadPoolExecutor e =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "sluice-lease-tick");
                t.setDaemon(true);
                return t;
              });
      e.setRemoveOnCancelPolicy(true); // a canceled timer leaves the queue: the thread can end
      e.setKeepAliveTime(1, TimeUnit.SECONDS);
      e.allowCoreThreadTimeOut(true); // ends only while the queue is empty (no timer left)
      return e;
    }
  }

  /** The shared scheduler, created on first use. */
  static ScheduledExecutorService shared() {
    return Holder.SHARED;
  }
}
