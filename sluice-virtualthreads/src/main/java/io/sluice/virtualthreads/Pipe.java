package io.sluice.virtualthreads;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.internal.LoopAffinity;
import io.sluice.internal.StreamCalls;
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
  private ArrayDeque<Message> inbox = new ArrayDeque<>(); // locked
  /** Messages the reader took from the inbox in one go; its thread's alone, read without lock. */
  private ArrayDeque<Message> taken = new ArrayDeque<>();
  /**
   * The thread that took {@link #taken}: only it touches them without the lock. Another thread
   * that reads next (the stream handed over) takes them over under the lock.
   */
  private volatile Thread reader;
  private final int prefetch;
  private final int refill;
  private volatile StreamHandle handle;
  private volatile boolean inboundDone; // the peer completed (or failed) its half (written locked)
  private Throwable error; // the stream failed
  private volatile boolean closed; // the local consumer closed the inbound half (written locked)
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
    if (reader == Thread.currentThread() && !taken.isEmpty()) {
      if (!closed) {
        return true; // the usual case: no lock
      }
      releaseAll(taken); // closed by another thread since this one took them
      return false;
    }
    try {
      if (!awaitNext()) {
        return false;
      }
      if (closed) { // a batch this thread took over from a reader before it, closed since
        releaseAll(taken);
        return false;
      }
      return true;
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
        return awaitMessages(); // the usual case: one lock per call
      }
      inboundRequested = true;
    } finally {
      lock.unlock();
    }
    handle.request(prefetch); // the first call grants the initial credit, outside the lock
    lock.lock();
    try {
      return awaitMessages();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until messages are in the inbox and takes them all (true), or until the inbound half
   * has ended (false). Locked. The calling thread becomes the reader: a batch another thread took
   * and left is now this one's.
   */
  private boolean awaitMessages() {
    reader = Thread.currentThread();
    if (!taken.isEmpty()) {
      return true;
    }
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
    if (closed) {
      return false; // closed while this thread waited for the lock; close() released the inbox
    }
    ArrayDeque<Message> t = inbox; // the reader takes the whole inbox: one lock per batch
    inbox = taken;
    taken = t;
    return true;
  }

  @Override
  public Message next() {
    Message m = reader == Thread.currentThread() ? taken.poll() : null;
    if (m == null) {
      if (!hasNext()) {
        throw new NoSuchElementException("the stream has ended");
      }
      m = taken.poll();
    } else if (closed) {
      m.release();
      releaseAll(taken); // closed by another thread since this one took them
      throw new NoSuchElementException("the stream was closed");
    }
    if (++consumed >= refill) { // the reader's own count: no lock
      int n = consumed;
      consumed = 0;
      if (!inboundDone) { // a racy read: a grant just after the end is ignored by the core
        grant(n);
      }
    }
    return m;
  }

  /**
   * Grants the peer {@code n} more messages. A thread carried by the stream's loop has its calls
   * run only when it yields the carrier, and a reader with messages in hand would yield only once
   * it has read them all: the peer would wait for the grant meanwhile and the two sides would take
   * turns. So such a thread yields here, once per grant, and the loop sends the grant at once.
   */
  private void grant(int n) {
    StreamHandle h = handle;
    try {
      if (!LoopAffinity.isBoundTo(h.executor())) {
        h.request(n);
        return;
      }
      StreamCalls.runInOrder(
          h,
          () -> {
            StreamCalls.requestInPlace(h, n);
            StreamCalls.flushInPlace(h);
          });
    } catch (RejectedExecutionException e) {
      return; // the loop has shut down: no more will come, and what is here can still be read
    }
    Thread.yield();
  }

  @Override
  public void close() {
    boolean cancel;
    Message[] unread;
    ArrayDeque<Message> own = null;
    lock.lock();
    try {
      if (reader == Thread.currentThread() && !taken.isEmpty()) {
        own = taken; // detached under the lock: no later reader can take it over meanwhile
        taken = new ArrayDeque<>();
      }
      if (closed) {
        unread = null;
        cancel = false; // closed before, perhaps by another thread: what the reader took is left
      } else {
        closed = true;
        cancel = closeCancels && error == null && !(inboundDone && outboundDone);
        unread = inbox.isEmpty() ? null : inbox.toArray(new Message[0]);
        inbox.clear();
        changed.signalAll();
      }
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
    releaseAll(own); // from another thread, the reader releases them at its next call
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

  // ---- BlockingSink (outbound) ----

  @Override
  public void send(Message message) {
    boolean interrupted = false;
    boolean ended = false;
    Throwable failed = null;
    boolean canceled = false;
    boolean direct = false;
    boolean schedule = false;
    boolean backlog = false;
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
      } else {
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
        if (drainScheduled) {
          ArrayDeque<Object> o = outbox();
          o.add(message);
          backlog = o.size() % YIELD_EVERY == 0; // again if a yield did not let it drain
        } else if (onTheStreamsLoop()) {
          direct = true; // nothing queued ahead of it: straight to the core
        } else {
          outbox().add(message);
          drainScheduled = schedule = true;
          // Its drain runs when this thread yields, not as a loop task that flushes after it.
          flushAfterDrain = LoopAffinity.isBoundTo(handle.executor());
        }
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
    if (direct) {
      handle.next(message);
    } else if (schedule) {
      scheduleDrain();
    } else if (backlog && LoopAffinity.isBoundTo(handle.executor())) {
      // Carried by the stream's loop, this thread is the only one that could let the drain run:
      // it yields, so the loop writes (and the peer reads) while it goes on producing, and a
      // producer with plenty of demand neither piles up messages nor holds the loop for long.
      Thread.yield();
    }
  }

  @Override
  public void complete() {
    lock.lock();
    try {
      if (outboundDone) {
        return;
      }
      outboundDone = true;
      if (drainScheduled) {
        outbox().add(COMPLETE); // after the messages queued before it
        return;
      }
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
      if (drainScheduled) {
        outbox().add(new Failure(cause));
        return;
      }
    } finally {
      lock.unlock();
    }
    handle.error(cause);
  }

  /** Cancels the stream, after the messages this side already sent. */
  void cancelStream() {
    StreamHandle h = handle;
    if (h == null) {
      return;
    }
    lock.lock();
    try {
      if (drainScheduled) {
        outbox().add(CANCEL);
        return;
      }
    } finally {
      lock.unlock();
    }
    h.cancel();
  }

  // ---- the outbox: what the sender's thread hands to the event loop ----
  //
  // A sender off the loop does not hand each message to the core (a queued command per message:
  // an allocation and a contended queue offer); it appends it to the outbox under the lock send()
  // takes anyway, and the first message into an empty outbox queues one command on the loop that
  // sends everything queued by then. Every later outbound call (complete, error, cancel)
  // queues behind the messages while a drain is pending, so the peer sees them in order. The core
  // is never called holding the lock: its calls may come back into this pipe's listener.

  /** Messages queued on a loop-carried sender's outbox before it yields for them to go out. */
  static final int YIELD_EVERY = 128;

  private static final Object COMPLETE = new Object();
  private static final Object CANCEL = new Object();

  private record Failure(Throwable cause) {}

  private ArrayDeque<Object> outbox; // locked; made on first use (requester streams never send)
  private ArrayDeque<Object> spare; // locked; the deque the last drain emptied
  private boolean drainScheduled; // locked; a drain task is queued or running
  private boolean flushAfterDrain; // locked; the sender is loop-carried
  private Runnable drain;

  private ArrayDeque<Object> outbox() {
    ArrayDeque<Object> o = outbox;
    if (o == null) {
      outbox = o = new ArrayDeque<>();
    }
    return o;
  }

  private void scheduleDrain() {
    Runnable d = drain;
    if (d == null) {
      drain = d = this::drainOutbox; // two senders racing here make one spare lambda at worst
    }
    try {
      StreamCalls.runInOrder(handle, d); // queued like the sender's other calls on the stream
    } catch (RejectedExecutionException e) {
      discardOutbox(e); // the event loop has shut down: nothing queued can be sent
      throw e;
    }
  }

  /** On the event loop: sends what the outbox holds, again until it stays empty. */
  private void drainOutbox() {
    ArrayDeque<Object> batch = null;
    boolean flush;
    for (; ; ) {
      lock.lock();
      try {
        if (batch != null) {
          spare = batch;
        }
        if (outbox == null || outbox.isEmpty()) { // null: discarded, the loop shut down
          drainScheduled = false;
          flush = flushAfterDrain;
          break;
        }
        batch = outbox;
        outbox = spare != null && spare != batch ? spare : new ArrayDeque<>();
        spare = null;
      } finally {
        lock.unlock();
      }
      try {
        sendAll(batch);
      } catch (Throwable t) { // the core failed a call: fail the stream rather than stall it
        discardOutbox(t);
        try {
          handle.error(t);
        } catch (Throwable ignored) {
          // the stream is already failed locally; nothing more to tell the peer
        }
        return;
      }
    }
    if (flush) {
      StreamCalls.flushInPlace(handle); // a loop-carried sender may go on running: out now
    }
  }

  private void sendAll(ArrayDeque<Object> batch) {
    StreamHandle h = handle;
    try {
      Object o;
      while ((o = batch.poll()) != null) {
        if (o instanceof Message m) {
          boolean last = batch.peek() == COMPLETE; // then one frame for both
          if (last) {
            batch.poll();
          }
          StreamCalls.nextInPlace(h, m, last);
        } else if (o == COMPLETE) {
          StreamCalls.completeInPlace(h);
        } else if (o == CANCEL) {
          StreamCalls.cancelInPlace(h);
        } else {
          StreamCalls.errorInPlace(h, ((Failure) o).cause());
        }
      }
    } finally {
      releaseAll(batch); // only if a call above threw
    }
  }

  private void discardOutbox(Throwable cause) {
    ArrayDeque<Object> dropped;
    lock.lock();
    try {
      dropped = outbox;
      outbox = null;
      drainScheduled = false;
      outboundDone = true;
      if (error == null) {
        error = cause;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    releaseAll(dropped);
  }

  /** Releases the messages in {@code q} (null: none), emptying it; markers are skipped. */
  private static void releaseAll(ArrayDeque<?> q) {
    if (q == null) {
      return;
    }
    Object o;
    while ((o = q.poll()) != null) {
      if (o instanceof Message m) {
        m.release();
      }
    }
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
