package io.sluice.virtualthreads;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.core.LoopAffinity;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads carried by a connection's event loop (experimental, opt-in).
 *
 * <p>By default a blocking handler or caller runs on the JDK's carrier threads, and every message
 * it sends or receives crosses between that carrier and the connection's event loop. Virtual
 * threads made here are scheduled on the event loop itself: a handler runs on the loop's thread
 * between the loop's I/O, a message it sends is written by the same thread, and a caller woken by
 * a response resumes there — no hand-off between threads and no second thread to share a CPU with.
 *
 * <p>The price is the event loop's usual rule, now applied to blocking code: while such a thread
 * runs, the loop does no I/O for any of its connections. Blocking calls that park the virtual
 * thread (Sluice's own calls, locks, sleeps, socket I/O through the JDK) are fine; long
 * computations, and calls that block the carrier itself (native code, file I/O, class
 * initialisation that waits), stall every connection on that loop. Use it for short handlers.
 *
 * <p>The JDK has no public API for a virtual thread scheduler yet; this uses the one its own tests
 * use, which needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} on the command line. Check
 * {@link #isAvailable()} (or catch the {@link UnsupportedOperationException}) and fall back to
 * ordinary virtual threads when it is missing. A loop that refuses work (shut down) hands its
 * threads to the common pool, so none is stranded.
 */
public final class EventLoopThreads {
  private static final MethodHandle NEW_BUILDER;
  private static final String UNAVAILABLE;

  static {
    MethodHandle h = null;
    String why = null;
    try {
      Class<?> c = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
      var ctor = c.getDeclaredConstructor(Executor.class);
      ctor.setAccessible(true);
      h = MethodHandles.lookup()
          .unreflectConstructor(ctor)
          .asType(MethodType.methodType(Thread.Builder.OfVirtual.class, Executor.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      why = "virtual threads on an event loop need --add-opens java.base/java.lang=ALL-UNNAMED"
          + " (" + e + ")";
    }
    NEW_BUILDER = h;
    UNAVAILABLE = why;
  }

  private EventLoopThreads() {}

  /** Whether this JVM lets Sluice schedule virtual threads on an event loop. */
  public static boolean isAvailable() {
    return NEW_BUILDER != null;
  }

  /** Throws, saying why, unless {@link #isAvailable()}. */
  static void requireAvailable() {
    if (NEW_BUILDER == null) {
      throw new UnsupportedOperationException(UNAVAILABLE);
    }
  }

  /**
   * A factory of virtual threads scheduled on {@code eventLoop} (a connection's {@code
   * executor()}); the threads are not started.
   *
   * @throws UnsupportedOperationException if {@link #isAvailable()} is false, saying why
   */
  public static ThreadFactory factory(Executor eventLoop) {
    Objects.requireNonNull(eventLoop, "eventLoop");
    requireAvailable();
    LoopScheduler scheduler = new LoopScheduler(eventLoop);
    ThreadFactory threads;
    try {
      threads = ((Thread.Builder.OfVirtual) NEW_BUILDER.invokeExact((Executor) scheduler)).factory();
    } catch (Throwable t) {
      throw new UnsupportedOperationException("cannot make virtual threads on an event loop", t);
    }
    LoopAffinity.Claim claim = scheduler.claim;
    return task -> {
      Objects.requireNonNull(task, "task");
      return threads.newThread(
          () -> {
            LoopAffinity.bindCurrentThread(claim);
            task.run();
          });
    };
  }

  /**
   * An executor starting each task on a new virtual thread scheduled on {@code eventLoop}. Called
   * on that loop's thread, the new thread runs at once, until it first blocks, before {@code
   * execute} returns (as a reactive handler would run inside the call that delivered its request).
   */
  public static Executor executor(Executor eventLoop) {
    ThreadFactory f = factory(eventLoop);
    return task -> {
      Thread t = f.newThread(task);
      int[] window = InlineRuns.open();
      try {
        t.start();
      } finally {
        InlineRuns.close(window);
      }
    };
  }

  /**
   * Runs virtual threads on one event loop: as a loop task, or at once when Sluice wakes one on the
   * loop's own thread (see {@link InlineRuns}).
   */
  private static final class LoopScheduler implements Executor {
    private final Executor loop;
    private final EventExecutor eventExecutor; // null if the loop is a plain Executor
    final LoopAffinity.Claim claim;

    LoopScheduler(Executor loop) {
      this.loop = loop;
      this.eventExecutor = loop instanceof EventExecutor e ? e : null;
      this.claim = LoopAffinity.claimFor(loop);
    }

    @Override
    public void execute(Runnable continuation) {
      if (eventExecutor != null
          && eventExecutor.inEventLoop()
          && InlineRuns.tryRunNow(continuation)) {
        return;
      }
      try {
        loop.execute(() -> InlineRuns.runQueued(continuation));
      } catch (RejectedExecutionException e) {
        // The loop is gone: its threads must still finish (and see their connections closed),
        // now on the common pool, so they may no longer act as the loop.
        claim.revoke();
        ForkJoinPool.commonPool().execute(continuation);
      }
    }
  }
}
