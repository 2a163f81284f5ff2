package io.sluice.grpcstub;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * The outbound half of a gRPC-style call: gRPC lets {@code onNext} run ahead of the peer's demand
 * ({@code isReady()} is advisory), while RSocket fails a stream that sends beyond it. Messages
 * therefore go through a small queue that only the connection's event loop drains, as far as the
 * peer's credit allows, so order is kept whatever thread calls {@code onNext}.
 *
 * <p><b>Fast path.</b> Callers that respect {@code isReady()} keep the queue empty: on the event
 * loop, with credit, nothing queued and the half open, {@code onNext} hands the message to the
 * stream at once, and neither it nor {@code isReady()} takes a lock (a handler looping on {@code
 * isReady()} from the on-ready callback sends a whole grant per loop turn at a few volatile reads
 * per message).
 *
 * <p><b>Threads.</b> The credit is a plain field of the event loop ({@link #onRequest}, the fast
 * path and {@link #drain}); other threads see only {@link #hasCredit}, a volatile copy of "credit
 * &gt; 0" that the loop writes when the credit leaves or reaches zero (once per grant, not once per
 * message). {@link #direct} says whether the fast path may be taken (stream known, nothing queued,
 * no completion or error pending, not closed) and is written under the lock together with what it
 * summarises. The queue and the terminal flags are guarded by {@code this}. {@link #isReady()}
 * raises {@link #wantReady} before its last look at {@link #hasCredit}, and the loop raises {@link
 * #hasCredit} before it looks at {@link #wantReady}, so a grant racing with an {@code isReady()}
 * that answers false always ends in the on-ready handler (at worst once more than needed, which
 * gRPC allows).
 */
final class Outbound {
  private ArrayDeque<Message> queue; // guarded by this; created when a message has to wait
  private final Runnable drainTask = this::drain;
  private StreamHandle handle; // written once under the lock, published by direct
  private EventExecutor loop; // the handle's executor, when it is a netty event loop
  /** The peer's unused demand: the event loop's alone (see the class comment). */
  private long credit;
  /** {@code credit > 0}, for every thread: written by the loop when that changes. */
  private volatile boolean hasCredit;

  private boolean sending; // event loop: inside handle.next

  private boolean completePending; // guarded by this
  private Throwable errorPending; // guarded by this
  private boolean drainScheduled; // guarded by this
  private boolean closed; // guarded by this: completed, failed or canceled
  /** Stream set, nothing queued, no completion or error pending, not closed. */
  private volatile boolean direct;

  private volatile Runnable onReady;
  private volatile Runnable onCompleteSent;
  private volatile Runnable onErrorSent;
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
      Executor e = h.executor();
      loop = e instanceof EventExecutor ? (EventExecutor) e : null;
      updateDirectLocked();
      schedule = (hasCredit || queuedLocked()) && scheduleLocked();
    }
    runDrain(schedule);
  }

  void onReadyHandler(Runnable r) {
    onReady = r;
  }

  boolean isReady() {
    if (readyNow()) {
      return true;
    }
    wantReady = true;
    return readyNow(); // true only if a grant raced with this call
  }

  private boolean readyNow() {
    return direct && hasCredit;
  }

  /** Runs on the event loop once the completion has been handed to the stream. */
  void onCompleteSent(Runnable r) {
    onCompleteSent = r;
  }

  /** Runs on the event loop once the error has been handed to the stream. */
  void onErrorSent(Runnable r) {
    onErrorSent = r;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** Sends or queues a message; released at once if the half is already closed. */
  void next(Message m) {
    if (direct) {
      EventExecutor l = loop; // published by direct
      if (l != null && l.inEventLoop()) {
        long c = credit;
        if (c > 0) {
          takeCredit(c);
          send(m);
          return;
        }
      }
    }
    boolean schedule;
    synchronized (this) {
      if (closed || completePending || errorPending != null) {
        m.release();
        return;
      }
      if (queue == null) {
        queue = new ArrayDeque<>();
      }
      queue.add(m);
      direct = false;
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  void complete() {
    boolean schedule;
    synchronized (this) {
      if (closed || completePending || errorPending != null) {
        return;
      }
      completePending = true;
      direct = false;
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
      direct = false;
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  /**
   * Hands one message to the stream (event loop, credit taken). The stream may grant more demand
   * from inside {@code next}; {@link #onRequest} then defers the drain to a task of its own, so the
   * on-ready handler never runs nested in the {@code onNext} that sent the message.
   */
  private void send(Message m) {
    sending = true;
    try {
      handle.next(m);
    } finally {
      sending = false;
    }
  }

  /** Uses one message of credit {@code c > 0} (event loop). */
  private void takeCredit(long c) {
    if (c != Long.MAX_VALUE) {
      credit = c - 1;
      if (c == 1) {
        hasCredit = false;
      }
    }
  }

  /** The peer's demand (event loop). */
  void onRequest(long n) {
    long c = credit + n;
    credit = c < 0 ? Long.MAX_VALUE : c;
    if (!hasCredit) {
      hasCredit = true; // before drain() reads wantReady
    }
    if (!sending) {
      drain();
      return;
    }
    if (direct && !wantReady) {
      // Sending from the handler's own loop (nothing queued, nothing pending): it sees the new
      // credit through isReady() as it goes on, and no on-ready call is owed, so no drain task.
      return;
    }
    boolean schedule;
    synchronized (this) {
      schedule = scheduleLocked();
    }
    runDrain(schedule);
  }

  /** The peer canceled or the stream ended: drop what is queued. */
  void close() {
    synchronized (this) {
      closed = true;
      direct = false;
      if (queue != null) {
        for (Message m; (m = queue.poll()) != null; ) {
          m.release();
        }
      }
    }
  }

  private void updateDirectLocked() {
    direct =
        handle != null
            && !closed
            && !completePending
            && errorPending == null
            && !queuedLocked();
  }

  private boolean queuedLocked() {
    return queue != null && !queue.isEmpty();
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
    Executor e;
    synchronized (this) {
      e = handle.executor();
    }
    e.execute(drainTask);
  }

  /** On the event loop: send what the credit allows, then a pending completion or error. */
  void drain() {
    boolean ready;
    synchronized (this) {
      drainScheduled = false;
      if (handle == null || closed) {
        return;
      }
      for (long c; (c = credit) > 0 && queuedLocked(); ) {
        takeCredit(c);
        send(queue.poll());
      }
      if (!queuedLocked() && errorPending != null) {
        closed = true;
        handle.error(errorPending);
        Runnable e = onErrorSent;
        if (e != null) {
          e.run();
        }
        return;
      }
      if (!queuedLocked() && completePending) {
        closed = true;
        handle.complete();
        Runnable c = onCompleteSent;
        if (c != null) {
          c.run();
        }
        return;
      }
      updateDirectLocked(); // before wantReady is read below
      ready = direct && credit > 0;
    }
    Runnable r = onReady;
    if (ready && r != null && wantReady) {
      wantReady = false;
      r.run();
    }
  }
}
