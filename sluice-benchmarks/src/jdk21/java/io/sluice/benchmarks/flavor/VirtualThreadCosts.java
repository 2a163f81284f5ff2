package io.sluice.benchmarks.flavor;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.virtualthreads.EventLoopThreads;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a virtual thread itself costs on an event loop, without any I/O ({@code ./sluice bench
 * --vt-costs}, in this JVM: run it under {@code taskset -c 1}). Each round, on one netty loop:
 *
 * <ul>
 *   <li>{@code start}: a loop task starts {@value #STARTS} threads through {@link
 *       EventLoopThreads#executor}; each runs at once (inline) and ends — what a request-response
 *       handler costs the server beyond its work;
 *   <li>{@code park}: one thread parks {@value #PARKS} times, each time unparked by a loop task
 *       that then queues the next; minus the same chain of tasks with no thread to wake (reported
 *       as {@code tick}) — a park, an unpark and a resume, what a blocking caller costs per call.
 * </ul>
 *
 * Nanoseconds per operation, one line per round; the first rounds include compilation.
 */
public final class VirtualThreadCosts {
  static final int STARTS = 500_000;
  static final int PARKS = 200_000;

  private VirtualThreadCosts() {}

  public static void run(PrintStream out, int rounds) throws Exception {
    DefaultEventExecutor loop = new DefaultEventExecutor();
    try {
      Executor start = EventLoopThreads.executor(loop);
      for (int round = 1; round <= rounds; round++) {
        long t0 = System.nanoTime();
        loop.submit(
                () -> {
                  for (int i = 0; i < STARTS; i++) {
                    start.execute(() -> {});
                  }
                })
            .get();
        long startNs = (System.nanoTime() - t0) / STARTS;
        long parkNs = parkCycle(loop, true);
        long tickNs = parkCycle(loop, false);
        out.printf(
            "VTCOST round=%d start_ns=%d park_unpark_resume_ns=%d tick_ns=%d net_park_ns=%d%n",
            round, startNs, parkNs, tickNs, parkNs - tickNs);
      }
    } finally {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  /** Ns per tick of a self-requeueing loop task that unparks a parking thread (or nothing). */
  private static long parkCycle(DefaultEventExecutor loop, boolean withThread)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    Thread parker =
        withThread
            ? EventLoopThreads.factory(loop)
                .newThread(
                    () -> {
                      for (int i = 0; i < PARKS; i++) {
                        LockSupport.park();
                      }
                      done.countDown();
                    })
            : null;
    int[] ticks = {0};
    Runnable[] tick = new Runnable[1];
    tick[0] =
        () -> {
          if (parker != null) {
            LockSupport.unpark(parker);
          }
          if (++ticks[0] >= 4 * PARKS || (parker == null && ticks[0] >= PARKS)) {
            done.countDown(); // bounded either way
          } else if (done.getCount() > 0) {
            loop.execute(tick[0]);
          }
        };
    long t0 = System.nanoTime();
    if (parker != null) {
      parker.start();
    }
    loop.execute(tick[0]);
    done.await();
    long ns = System.nanoTime() - t0;
    return ns / PARKS;
  }
}
