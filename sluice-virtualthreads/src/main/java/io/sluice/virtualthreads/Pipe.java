package io.sluice.virtualthreads;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.ArrayDeque;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One stream as seen by blocking threads: the core's listener (signals from the event loop) and
 * both blocking halves, the inbound iterator and the outbound sender. The inbound buffer never
 * holds more than the credit granted to the peer ({@code prefetch}); the sender waits for the
 * peer's demand. A {@link ReentrantLock}, not {@code synchronized}, so virtual threads parked here
 * never pin their carrier.
 */
class Pipe implements StreamListener, BlockingStream, BlockingSink {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Message> inbox = new ArrayDeque<>();
  private final int prefetch;
  private final int refill;
  private volatile StreamHandle handle;
  private boolean inboundDone; // the peer completed (or failed) its half
  private Throwable error; // the stream failed
  private boolean closed; // the local consumer closed the inbound half
  private boolean peerCanceled;
  private boolean outboundDone;
  private long demand; // outbound credit from the peer
  private int consumed; // inbound messages taken since the last REQUEST_N
  private boolean inboundRequested; // the initial inbound credit was granted
  private volatile Thread worker; // interrupted when the peer cancels (server handlers)
  private boolean wakeScheduled; // a loop task will wake the blocked reader
  private final Runnable wake =
      () -> {
        lock.lock();
        try {
          wakeScheduled = false;
          changed.signalAll();
        } finally {
          unlockWaking();
        }
      };

  /**
   * What {@link #close()} cancels: a requester's stream or channel is canceled (CANCEL ends both
   * halves of a channel); a responder cannot cancel only the requester's half while its own
   * response runs, so there close only stops reading and the adapter cancels once the response
   * has ended.
   */
  private final boolean closeCancels;

  /**
   * @param prefetch inbound credit kept granted to the peer
   * @param inboundRequested whether the initial credit was already granted (requester side)
   * @param inboundDone whether nothing will arrive (request-stream responder: no inbound half)
   */
  Pipe(int prefetch, boolean inboundRequested, boolean inboundDone, boolean closeCancels) {
    this.closeCancels = closeCancels;
    if (prefetch < 1) {
      throw new IllegalArgumentException("prefetch must be at least 1: " + prefetch);
    }
    this.prefetch = prefetch;
    this.refill = Math.max(1, prefetch / 2);
    this.inboundRequested = inboundRequested;
    this.inboundDone = inboundDone;
  }

  /** This stream has no outbound half (a requester's request-stream). */
  Pipe noOutbound() {
    outboundDone = true;
    return this;
  }

  void handle(StreamHandle h) {
    handle = h;
  }

  /** The handler's thread, interrupted on the peer's cancel (also one that came before it ran). */
  void worker(Thread t) {
    worker = t;
    if (t != null && isCanceled()) {
      t.interrupt();
    }
  }

  // ---- StreamListener (event loop) ----

  @Override
  public void onNext(Message message) {
    lock.lock();
    try {
      if (closed || error != null) {
        message.release();
        return;
      }
      inbox.add(message);
      if (lock.hasWaiters(changed)) {
        wakeAtEndOfLoopTurn();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Wakes the blocked reader once the event loop has handled what it read in this turn, rather
   * than once per message: each wake is a thread hand-off, and a reader woken per message takes
   * turns with the loop per message. Holding the lock.
   */
  private void wakeAtEndOfLoopTurn() {
    StreamHandle h = handle;
    if (h == null) {
      changed.signalAll();
    } else if (!wakeScheduled) {
      wakeScheduled = true;
      try {
        h.executor().execute(wake);
      } catch (RejectedExecutionException e) {
        wakeScheduled = false; // the loop is shutting down: wake the reader now
        changed.signalAll();
      }
    }
  }

  @Override
  public void onComplete() {
    lock.lock();
    try {
      inboundDone = true;
      changed.signalAll();
    } finally {
      unlockWaking();
    }
  }

  @Override
  public void onError(Throwable cause) {
    lock.lock();
    try {
      if (error == null) {
        error = cause;
      }
      inboundDone = true;
      outboundDone = true;
      changed.signalAll();
    } finally {
      unlockWaking();
    }
    interruptWorker(); // queued, not inline: an interrupt is no wake-up to run inside
  }

  @Override
  public void onRequest(long n) {
    lock.lock();
    try {
      long d = demand + n;
      demand = d < 0 ? Long.MAX_VALUE : d;
      changed.signalAll();
    } finally {
      unlockWaking();
    }
  }

  @Override
  public void onCancel() {
    lock.lock();
    try {
      peerCanceled = true;
      outboundDone = true;
      changed.signalAll();
    } finally {
      unlockWaking();
    }
    interruptWorker(); // queued, not inline: an interrupt is no wake-up to run inside
  }

  /**
   * Unlocks, letting a thread this wakes (the lock's release unparks it) run at once when that is
   * allowed here (see {@link InlineRuns}).
   */
  private void unlockWaking() {
    int[] window = InlineRuns.open();
    try {
      lock.unlock();
    } finally {
      InlineRuns.close(window);
    }
  }

  private void interruptWorker() {
    Thread w = worker;
    if (w != null) {
      w.interrupt();
    }
  }

  // ---- BlockingStream (inbound) ----

  @Override
  public boolean hasNext() {
    try {
      return awaitNext();
    } catch (InterruptedWait e) {
      if (closeCancels) {
        close(); // a requester's interrupted wait cancels its stream
      }
      throw e;
    }
  }

  private boolean awaitNext() {
    lock.lock();
    try {
      if (inboundRequested || closed || inboundDone) {
        return awaitMessage(); // the usual case: one lock per call
      }
      inboundRequested = true;
    } finally {
      lock.unlock();
    }
    handle.request(prefetch); // the first call grants the initial credit, outside the lock
    lock.lock();
    try {
      return awaitMessage();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until a message is in the inbox (true) or the inbound half has ended (false). Locked. */
  private boolean awaitMessage() {
    while (inbox.isEmpty()) {
      if (closed) {
        return false;
      }
      if (error != null) {
        throw propagate(error);
      }
      if (inboundDone) {
        return false;
      }
      awaitChange();
    }
    return true;
  }

  @Override
  public Message next() {
    Message m;
    int grant;
    for (; ; ) {
      lock.lock();
      try {
        // One lock when a message is waiting (after hasNext(), the usual case).
        m = inboundRequested ? inbox.poll() : null;
        grant = m != null ? consumedOne() : 0;
      } finally {
        lock.unlock();
      }
      if (m != null) {
        break;
      }
      if (!hasNext()) {
        throw new NoSuchElementException("the stream has ended");
      }
    }
    if (grant > 0) {
      handle.request(grant);
    }
    return m;
  }

  /** Counts one message taken; returns the credit to grant now (0: not yet). Locked. */
  private int consumedOne() {
    if (++consumed >= refill && !inboundDone) {
      int grant = consumed;
      consumed = 0;
      return grant;
    }
    return 0;
  }

  @Override
  public void close() {
    boolean cancel;
    Message[] unread;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      cancel = closeCancels && error == null && !(inboundDone && outboundDone);
      unread = inbox.isEmpty() ? null : inbox.toArray(new Message[0]);
      inbox.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    // Outside the lock: a release may wait (an allocator's lock), and a thread carried by the
    // event loop must not wait holding a lock the loop takes.
    if (unread != null) {
      for (Message m : unread) {
        m.release();
      }
    }
    if (cancel) {
      cancelStream();
    }
  }

  /** True if the peer's half has ended (completed, failed) or was canceled locally. */
  boolean inboundEnded() {
    lock.lock();
    try {
      return inboundDone || error != null;
    } finally {
      lock.unlock();
    }
  }

  void cancelStream() {
    StreamHandle h = handle;
    if (h != null) {
      h.cancel();
    }
  }

  // ---- BlockingSink (outbound) ----

  @Override
  public void send(Message message) {
    boolean interrupted = false;
    boolean ended = false;
    Throwable failed = null;
    boolean canceled = false;
    lock.lock();
    try {
      while (demand == 0 && !outboundDone) {
        if (onTheStreamsLoop()) {
          message.release();
          throw onLoopError(); // only the loop could bring the demand we wait for
        }
        try {
          changed.await();
        } catch (InterruptedException e) {
          interrupted = true;
          break;
        }
      }
      if (interrupted) {
        // handled below, outside the lock
      } else if (outboundDone) {
        ended = true;
        failed = error;
        canceled = peerCanceled;
      } else if (demand != Long.MAX_VALUE) {
        demand--;
      }
    } finally {
      lock.unlock();
    }
    if (interrupted) {
      message.release();
      Thread.currentThread().interrupt();
      if (closeCancels) {
        close(); // a requester's interrupted wait cancels its stream
      }
      throw new CancellationException("interrupted while waiting for the peer's demand");
    }
    if (ended) {
      message.release(); // before throwing: the stream's cause may be an Error
      throw ended(failed, canceled);
    }
    handle.next(message);
  }

  @Override
  public void complete() {
    lock.lock();
    try {
      if (outboundDone) {
        return;
      }
      outboundDone = true;
    } finally {
      lock.unlock();
    }
    handle.complete();
  }

  @Override
  public void error(Throwable cause) {
    lock.lock();
    try {
      outboundDone = true;
    } finally {
      lock.unlock();
    }
    handle.error(cause);
  }

  @Override
  public boolean isCanceled() {
    lock.lock();
    try {
      return peerCanceled || error != null;
    } finally {
      lock.unlock();
    }
  }

  private static RuntimeException ended(Throwable error, boolean peerCanceled) {
    if (error != null) {
      return propagate(error);
    }
    if (peerCanceled) {
      return new CancellationException("the peer canceled the stream");
    }
    return new IllegalStateException("the outbound half is already complete");
  }

  private void awaitChange() {
    if (onTheStreamsLoop()) {
      throw onLoopError(); // only the loop could bring what we wait for
    }
    try {
      changed.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedWait(); // hasNext() closes once the lock is released
    }
  }

  /** An interrupted wait for the next message; the stream is closed outside the lock. */
  private static final class InterruptedWait extends CancellationException {
    private static final long serialVersionUID = 1L;

    InterruptedWait() {
      super("interrupted while waiting for the next message");
    }
  }

  private boolean onTheStreamsLoop() {
    StreamHandle h = handle;
    return h != null && onLoopThread(h.executor());
  }

  /** True on the event loop's own thread (not on a virtual thread it carries). */
  static boolean onLoopThread(Executor loop) {
    return loop instanceof EventExecutor e && e.inEventLoop();
  }

  static IllegalStateException onLoopError() {
    return new IllegalStateException(
        "a blocking call on the connection's event loop thread would wait for that thread forever;"
            + " call it from a virtual thread (EventLoopThreads makes ones carried by this loop)");
  }

  static RuntimeException propagate(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new java.util.concurrent.CompletionException(t);
  }
}
