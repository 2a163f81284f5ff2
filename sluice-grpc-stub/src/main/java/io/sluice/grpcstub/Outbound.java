package io.sluice.grpcstub;

import io.sluice.Message;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.StreamHandle;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * The outbound half of a gRPC-style call: gRPC lets {@code onNext} run ahead of the peer's demand
 * ({@code isReady()} is advisory), while RSocket fails a stream that sends beyond it. Messages
 * therefore go through a small queue that only the connection's event loop drains, as far as the
 * peer's credit allows, so order is kept whatever thread calls {@code onNext}. Callers that respect
 * {@code isReady()} keep the queue empty: on the event loop, with credit and nothing queued, a
 * message goes to the stream at once.
 */
final class Outbound {
  private final ArrayDeque<Message> queue = new ArrayDeque<>();
  private final Runnable drainTask = this::drain;
  private StreamHandle handle; // guarded by this
  private long credit; // guarded by this
  private boolean completePending; // guarded by this
  private Throwable errorPending; // guarded by this
  private boolean drainScheduled; // guarded by this
  private boolean closed; // guarded by this: completed, failed or canceled
  private volatile Runnable onReady;
  private volatile Runnable onCompleteSent;
  /** True until the on-ready handler ran after {@link #isReady()} last answered false. */
  private volatile boolean wantReady = true;

  /**
   * Sets the stream. Demand may already have arrived (the start call returns after the loop may
   * have run): then a drain is scheduled so it is used and the on-ready handler told.
   */
  void handle(StreamHandle h) {
    boolean schedule;
    synchronized (this) {
      handle = h;
      schedule = (credit > 0 || !queue.isEmpty()) && scheduleLocked();
    }
    runDrain(schedule);
  }

  void onReadyHandler(Runnable r) {
    onReady = r;
  }

  boolean isReady() {
    boolean ready;
    synchronized (this) {
      ready = !closed && handle != null && credit > 0 && queue.isEmpty();
    }
    if (!ready) {
      wantReady = true;
    }
    return ready;
  }

  /** Runs on the event loop once the completion has been handed to the stream. */
  void onCompleteSent(Runnable r) {
    onCompleteSent = r;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** Queues a message; released at once if the half is already closed. */
  void next(Message m) {
    boolean schedule;
    synchronized (this) {
      if (closed || completePending || errorPending != null) {
        m.release();
        return;
      }
      if (queue.isEmpty() && credit > 0 && handle != null && onLoop(handle)) {
        // On the event loop with credit and nothing queued: send at once, so that a handler
        // looping on isReady() from the on-ready callback sends a whole window per loop turn.
        if (credit != Long.MAX_VALUE) {
          credit--;
        }
        handle.next(m);
        return;
      }
      queue.add(m);
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  private static boolean onLoop(StreamHandle h) {
    Executor e = h.executor();
    return e instanceof EventExecutor && ((EventExecutor) e).inEventLoop();
  }

  void complete() {
    boolean schedule;
    synchronized (this) {
      if (closed || completePending || errorPending != null) {
        return;
      }
      completePending = true;
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  void error(Throwable t) {
    boolean schedule;
    synchronized (this) {
      if (closed || completePending || errorPending != null) {
        return;
      }
      errorPending = t;
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  /** The peer's demand (event loop). */
  void onRequest(long n) {
    synchronized (this) {
      long c = credit + n;
      credit = c < 0 ? Long.MAX_VALUE : c;
    }
    drain();
  }

  /** The peer canceled or the stream ended: drop what is queued. */
  void close() {
    synchronized (this) {
      closed = true;
      for (Message m; (m = queue.poll()) != null; ) {
        m.release();
      }
    }
  }

  private boolean scheduleLocked() {
    if (handle == null || drainScheduled) {
      return false;
    }
    drainScheduled = true;
    return true;
  }

  private void runDrain(boolean schedule) {
    if (!schedule) {
      return;
    }
    Executor loop;
    synchronized (this) {
      loop = handle.executor();
    }
    loop.execute(drainTask);
  }

  /** On the event loop: send what the credit allows, then a pending completion or error. */
  void drain() {
    boolean ready;
    synchronized (this) {
      drainScheduled = false;
      if (handle == null || closed) {
        return;
      }
      while (credit > 0 && !queue.isEmpty()) {
        if (credit != Long.MAX_VALUE) {
          credit--;
        }
        handle.next(queue.poll());
      }
      if (queue.isEmpty() && errorPending != null) {
        closed = true;
        handle.error(errorPending);
        return;
      }
      if (queue.isEmpty() && completePending) {
        closed = true;
        handle.complete();
        Runnable c = onCompleteSent;
        if (c != null) {
          c.run();
        }
        return;
      }
      ready = credit > 0 && queue.isEmpty();
    }
    Runnable r = onReady;
    if (ready && r != null && wantReady) {
      wantReady = false;
      r.run();
    }
  }
}
