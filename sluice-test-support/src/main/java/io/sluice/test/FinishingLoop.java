package io.sluice.test;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An event loop whose last step after shutting down ({@code cleanup()}) waits until the test lets
 * it {@link #finish()}: it has stopped taking tasks but has not terminated. With {@link
 * #landLateFrom} a task that one thread hands it is accepted without an exception yet never runs,
 * as netty's own loops may do with a task offered just as they shut down (their queues cannot take
 * a task back out).
 *
 * <p><b>Threads.</b> Its tasks and its last step run on its own thread; {@link #finish()}, {@link
 * #landLateFrom} and the latches are for the test's threads. Holds no buffers.
 */
public final class FinishingLoop extends SingleThreadEventExecutor {
  /** Counted down when the loop has begun its last step. */
  public final CountDownLatch inLastStep;
  /** Counted down when the hand-off of {@link #landLateFrom}'s thread is under way (and waits). */
  public final CountDownLatch lateHandOffWaiting;

  private final CountDownLatch finish = new CountDownLatch(1);
  // Set by newTaskQueue, which the super constructor calls: no initializer, or it would be undone.
  private LateQueue queue;

  public FinishingLoop() {
    super(null, new DefaultThreadFactory("finishing-loop"), true);
    inLastStep = queue.inLastStep;
    lateHandOffWaiting = queue.lateHandOffWaiting;
  }

  /**
   * The next task {@code caller} hands this loop waits inside the hand-off until the loop has begun
   * its last step, and then lands in the queue for good: {@code execute} returns normally, and the
   * task is dropped when the loop terminates. Shut the loop down only once {@link
   * #lateHandOffWaiting} is counted down, or the hand-off may come after the shutdown and be
   * rejected instead.
   */
  public void landLateFrom(Thread caller) {
    queue.lateCaller = caller;
  }

  /** Lets the last step end: the loop terminates. */
  public void finish() {
    finish.countDown();
  }

  @Override
  protected Queue<Runnable> newTaskQueue(int maxPendingTasks) {
    queue = new LateQueue();
    return queue;
  }

  @Override
  protected void run() {
    for (; ; ) {
      Runnable task = takeTask();
      if (task != null) {
        runTask(task);
        updateLastExecutionTime();
      }
      if (confirmShutdown()) {
        break;
      }
    }
  }

  @Override
  protected void cleanup() {
    inLastStep.countDown();
    try {
      finish.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class LateQueue extends LinkedBlockingQueue<Runnable> {
    final CountDownLatch inLastStep = new CountDownLatch(1);
    final CountDownLatch lateHandOffWaiting = new CountDownLatch(1);
    volatile Thread lateCaller;

    @Override
    public boolean offer(Runnable task) {
      if (Thread.currentThread() == lateCaller) {
        lateCaller = null;
        lateHandOffWaiting.countDown();
        try {
          inLastStep.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.offer(task);
    }

    @Override
    public boolean remove(Object task) {
      throw new UnsupportedOperationException("as netty's loops' queues: no taking a task back");
    }
  }
}
