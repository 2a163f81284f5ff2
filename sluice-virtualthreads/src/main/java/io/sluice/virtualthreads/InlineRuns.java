package io.sluice.virtualthreads;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.internal.LoopAffinity;

/**
 * When an event loop may run one of its virtual threads at once, inside the code that made it
 * runnable, instead of queueing it as a loop task.
 *
 * <p>Only inside Sluice's own wake-ups on the loop's thread (a response or message delivered,
 * demand granted, a stream ended, a handler started): there no lock is held and the connection
 * expects a listener to call back at once, as reactive ones do. The commands the thread queued run
 * on the loop as soon as it yields the carrier ({@link LoopAffinity}), so what it sends joins the
 * batch the loop is writing. Anywhere else — user code on the loop that unparks a thread,
 * perhaps while holding a lock that thread needs — the thread is queued. One thread at a time: a
 * wake-up from inside a running virtual thread (or from its unmounting) is queued too.
 */
final class InlineRuns {
  private static final int QUEUE = 0;
  private static final int ALLOWED = 1;
  private static final int RUNNING = 2;

  /** Per loop thread (netty's threads are {@link FastThreadLocalThread}s: an array index). */
  private static final FastThreadLocal<int[]> MODE =
      new FastThreadLocal<>() {
        @Override
        protected int[] initialValue() {
          return new int[1];
        }
      };

  private InlineRuns() {}

  /**
   * Opens a wake-up window on the calling thread; pass the result to {@link #close}. Returns null
   * (and opens nothing) off netty's threads or inside a window or run already open.
   */
  static int[] open() {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      return null; // virtual threads, user threads: never inline
    }
    int[] mode = MODE.get();
    if (mode[0] != QUEUE) {
      return null;
    }
    mode[0] = ALLOWED;
    return mode;
  }

  static void close(int[] window) {
    if (window != null) {
      window[0] = QUEUE;
    }
  }

  /**
   * Runs {@code continuation} now if the calling thread (the loop, as the caller checked) is in an
   * open window and not already running one, then the commands its thread queued; returns false
   * if it must be queued instead.
   */
  static boolean tryRunNow(Runnable continuation, LoopAffinity.Claim claim) {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      return false;
    }
    int[] mode = MODE.get();
    if (mode[0] != ALLOWED) {
      return false;
    }
    mode[0] = RUNNING;
    try {
      runThenDrain(continuation, claim);
    } finally {
      mode[0] = ALLOWED;
    }
    return true;
  }

  /**
   * Runs a queued {@code continuation} as a loop task, then the commands its thread queued:
   * wake-ups inside either are queued.
   */
  static void runQueued(Runnable continuation, LoopAffinity.Claim claim) {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      runThenDrain(continuation, claim); // a loop whose threads are not netty's: never inline there
      return;
    }
    int[] mode = MODE.get();
    int before = mode[0];
    mode[0] = RUNNING;
    try {
      runThenDrain(continuation, claim);
    } finally {
      mode[0] = before;
    }
  }

  /** Runs the thread until it yields, then what it queued, on the loop (wake-ups in it queue). */
  private static void runThenDrain(Runnable continuation, LoopAffinity.Claim claim) {
    try {
      continuation.run();
    } finally {
      claim.runPending();
    }
  }
}
