package io.sluice.internal;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs test code on an event loop and waits for it, with bounded waits only. */
final class Loop {
  private Loop() {}

  /**
   * A guard against a hang, not a measure: one loop task may stream thousands of frames with the
   * leak detector at PARANOID recording every buffer, which took over 10 s on a loaded 2-core CI
   * machine (TransportPrefixEngineTest.aFullBatchKeepsRoomForTheLongestPrefix).
   */
  static final long WAIT_SECONDS = 60;

  static void run(EventExecutor loop, Runnable r) {
    call(
        loop,
        () -> {
          r.run();
          return null;
        });
  }

  static <T> T call(EventExecutor loop, Callable<T> c) {
    if (loop.inEventLoop()) {
      try {
        return c.call();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }
    return await(loop.submit(c));
  }

  /** Lets every task already queued on the loop (and those they queue in turn) run. */
  static void settle(EventExecutor loop) {
    for (int i = 0; i < 4; i++) {
      run(loop, () -> {});
    }
  }

  static <T> T await(Future<T> f) {
    try {
      return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new AssertionError(cause);
    } catch (TimeoutException e) {
      throw new AssertionError("timed out after " + WAIT_SECONDS + " s", e);
    }
  }

  /** Waits for {@code f} to complete, normally or not; returns its failure or null. */
  static Throwable awaitOutcome(CompletableFuture<?> f) {
    try {
      f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("timed out after " + WAIT_SECONDS + " s", e);
    }
  }
}
