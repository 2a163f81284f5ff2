package io.sluice.virtualthreads;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.internal.LoopAffinity;
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
 * runs, the loop does no I/O for any of its connections. Waits that park the virtual thread
 * (Sluice's own blocking calls, {@code java.util.concurrent} locks, queues and futures, sleeps,
 * socket I/O through the JDK, and on JDK 24+ {@code synchronized} and {@code Object.wait}) are
 * fine. Long computations, and calls that hold the carrier itself (native code, file I/O), stall
 * every connection on that loop; a wait that holds the carrier for something only this loop can
 * deliver (a class initialiser waiting on another thread's response) never ends. Do not share a
 * lock between code that runs on the loop's own thread and these threads. Use it for short
 * handlers.
 *
 * <p>Needs JDK 24 or later (before that, {@code synchronized} and {@code Object.wait} hold the
 * carrier: a handler waiting inside one would wait for its own loop forever). The JDK has no public
 * API for a virtual thread scheduler yet; this uses the constructor its own tests use, which needs
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED} on the command line. Check {@link
 * #isAvailable()} (or catch the {@link UnsupportedOperationException}, whose message says what is
 * missing) and fall back to ordinary virtual threads. A loop that refuses work (shut down) hands
 * its threads to the common pool, where they finish as ordinary virtual threads.
 *
 * <p>What the threads call on a connection runs on the loop itself, right after the thread yields
 * the carrier; when Sluice wakes one on the loop's thread (a response, a message, demand), it runs
 * at once, inside that work — so its messages join the batch the loop is writing.
 *
 * <p>Holds no buffers.
 */
public final class EventLoopThreads {
  private static final MethodHandle NEW_BUILDER;
  private static final String UNAVAILABLE;

  /** The first JDK whose virtual threads wait inside {@code synchronized} without their carrier. */
  static final int MIN_JDK = 24;

  static {
    MethodHandle h = null;
    String why = null;
    try {
      if (Runtime.version().feature() < MIN_JDK) {
        throw new UnsupportedOperationException(
            "virtual threads on an event loop need JDK " + MIN_JDK + "+ (this is JDK "
                + Runtime.version().feature() + ")");
      }
      Class<?> c = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
      var ctor = c.getDeclaredConstructor(Executor.class);
      ctor.setAccessible(true);
      h = MethodHandles.lookup()
          .unreflectConstructor(ctor)
          .asType(MethodType.methodType(Thread.Builder.OfVirtual.class, Executor.class));
    } catch (UnsupportedOperationException e) {
      why = e.getMessage();
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
    if (!(eventLoop instanceof EventExecutor loop)) {
      throw new IllegalArgumentException(
          "not a netty event loop (a connection's executor() is one): " + eventLoop);
    }
    LoopScheduler scheduler = new LoopScheduler(loop);
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
    private final EventExecutor loop;
    final LoopAffinity.Claim claim;

    LoopScheduler(EventExecutor loop) {
      this.loop = loop;
      this.claim = LoopAffinity.claimFor(loop);
    }

    @Override
    public void execute(Runnable continuation) {
      if (!claim.isRevoked()) {
        if (loop.inEventLoop() && InlineRuns.tryRunNow(continuation, claim)) {
          return;
        }
        Queued task = new Queued(continuation, claim);
        try {
          loop.execute(task);
          if (loop.isShutdown()) {
            // Accepted as the loop shut down: netty may drop such a task at termination (it
            // cannot take it back out of its queue), and the thread would never run again.
            loop.terminationFuture().addListener(f -> task.runElsewhereIfDropped());
          }
          return;
        } catch (RejectedExecutionException e) {
          // The loop is gone. Its threads must still finish (and see their connections closed),
          // now on another pool, so from here on they no longer count as the loop's.
          claim.revoke();
        }
      }
      ForkJoinPool.commonPool().execute(continuation);
    }
  }

  /**
   * A thread's continuation queued on the loop. If the loop drops it at termination, a listener
   * on the termination runs it elsewhere. No atomics needed: the loop runs it (if at all) before it
   * terminates, and the listener runs after, seeing what the loop wrote.
   */
  private static final class Queued implements Runnable {
    private final Runnable continuation;
    private final LoopAffinity.Claim claim;
    private boolean ran;

    Queued(Runnable continuation, LoopAffinity.Claim claim) {
      this.continuation = continuation;
      this.claim = claim;
    }

    @Override
    public void run() {
      ran = true;
      InlineRuns.runQueued(continuation, claim);
    }

    /** After the loop terminated: runs the thread on the common pool if the loop did not. */
    void runElsewhereIfDropped() {
      if (!ran) {
        ran = true;
        claim.revoke();
        ForkJoinPool.commonPool().execute(continuation);
      }
    }
  }
}
