package io.sluice.flavor;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.StreamHandle;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs work where every signal of a stream comes from: its event loop (Reactive Streams §1.3). The
 * flavors end a call there when its subscriber breaks §3.9 (a {@code request(n <= 0)}), so that
 * the error cannot overtake or cross a signal the loop is giving.
 */
public final class OnStreamLoop {
  private OnStreamLoop() {}

  /**
   * Runs {@code task} on {@code h}'s event loop: now if the caller is on it, else as a task of it;
   * now as well if the loop rejects the task (it is gone, and with it every other signal of the
   * stream).
   */
  public static void run(StreamHandle h, Runnable task) {
    Executor loop = h.executor();
    if (loop instanceof EventExecutor && ((EventExecutor) loop).inEventLoop()) {
      task.run();
      return;
    }
    try {
      loop.execute(task);
    } catch (RejectedExecutionException gone) {
      task.run();
    }
  }
}
