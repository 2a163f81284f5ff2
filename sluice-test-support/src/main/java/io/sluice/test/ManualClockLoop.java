package io.sluice.test;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.concurrent.Ticker;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An event loop on a clock the test moves by hand: its timers ({@code schedule}, {@code
 * scheduleAtFixedRate}) and the {@link #ticker()} that Sluice's engine reads for its own deadlines
 * (keepalive, lease, write stall, rate budgets) stand still until {@link #advance} moves them. A
 * test then drives every timer of a connection and asserts what happens before and after a
 * deadline, whatever the load of the machine: nothing depends on how fast the loop's thread runs.
 *
 * <p>Tasks handed to it with {@code execute} run at once, on its own thread, as on any loop.
 *
 * <p><b>Threads.</b> Call {@link #advance} and {@link #hasTimers()} from the test's thread, never
 * from the loop: they wait for the loop to run a task. Holds no buffers.
 */
public final class ManualClockLoop extends SingleThreadEventExecutor {
  // Made by the first ticker() call, which the super constructor makes: no initializer, or it
  // would replace the clock the constructor already read.
  private MockTicker clock;

  public ManualClockLoop() {
    super(null, new DefaultThreadFactory("manual-clock-loop"), true);
  }

  @Override
  public Ticker ticker() {
    if (clock == null) {
      clock = Ticker.newMockTicker();
    }
    return clock;
  }

  /**
   * Moves the clock forward and waits until the loop has run every timer now due (and what those
   * ran in turn). Call from the test's thread, not from the loop.
   */
  public void advance(long amount, TimeUnit unit) {
    if (inEventLoop()) {
      throw new IllegalStateException("advance the clock from the test's thread, not the loop");
    }
    ticker();
    clock.advance(amount, unit);
    // The loop may be asleep until the deadline it computed from the old time: a task wakes it.
    // Then turn after turn until no timer is due (a fixed-rate timer catches up one period per
    // turn; a timer may schedule another one that is due at once).
    for (int turns = 0; turns < 1_000_000; turns++) {
      if (!onLoop(this::timerDue)) {
        return;
      }
    }
    throw new AssertionError("timers kept falling due after a million loop turns");
  }

  /** True if a timer is scheduled on this loop (one that was canceled does not count). */
  public boolean hasTimers() {
    return onLoop(() -> nextScheduledTaskDeadlineNanos() != -1);
  }

  /** Runs {@code check} on the loop and waits (at most 30 s) for its answer. */
  private boolean onLoop(Callable<Boolean> check) {
    try {
      return submit(check).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("the loop did not run a task within 30 s", e);
    }
  }

  private boolean timerDue() {
    // A due timer may already have left the timer queue: when the loop finds one due, it moves it
    // to the tail of its task queue, behind this check if the check was queued first (as when the
    // loop was busy as the clock moved). So a queued task also means "not done yet": check again,
    // behind it.
    if (hasTasks()) {
      return true;
    }
    long deadline = nextScheduledTaskDeadlineNanos();
    return deadline != -1 && deadline - clock.nanoTime() <= 0;
  }

  /** Moves the clock forward by {@code millis} milliseconds (see {@link #advance}). */
  public void advanceMillis(long millis) {
    advance(millis, TimeUnit.MILLISECONDS);
  }

  /** The time the clock shows, in nanoseconds (only differences mean anything). */
  public long clockNanos() {
    return ticker().nanoTime();
  }

  @Override
  protected void run() {
    for (; ; ) {
      Runnable task = takeTask();
      if (task != null) {
        runTask(task);
        updateLastExecutionTime();
      }
      if (isShuttingDown()) {
        // A shutdown's quiet period and timeout are measured on this clock, which stands still:
        // let them pass, or the loop would never end.
        clock.advance(1, TimeUnit.DAYS);
      }
      if (confirmShutdown()) {
        break;
      }
    }
  }
}
