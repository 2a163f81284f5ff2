package io.sluice.internal;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.RejectedExecutionException;

/**
 * The hand-off of calls made off the connection's event loop: one MPSC queue of commands, drained
 * on the loop in order and in batches (the shape of grpc-java's WriteQueue), with one flush per
 * drain. Commands of threads carried by the loop itself ({@link LoopAffinity}) are run when such a
 * thread yields, without a hand-off. If the loop shuts down under the connection, the thread that
 * finds it gone stands in for it (see {@link #standInForLoop}); if its bounded task queue is full,
 * the drain is owed, never dropped (see {@link #scheduleDrain}).
 *
 * <p>The queue's only consumer is the loop (or the one thread standing in for it); any thread
 * may produce.
 */
final class CommandQueue {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(CommandQueue.class);

  private final SluiceConnection conn;
  private final EventExecutor loop;
  // Field updaters, not AtomicBooleans: three objects (48 B) fewer per connection.
  private static final AtomicIntegerFieldUpdater<CommandQueue> DRAIN_SCHEDULED =
      AtomicIntegerFieldUpdater.newUpdater(CommandQueue.class, "drainScheduled");
  private static final AtomicIntegerFieldUpdater<CommandQueue> STAND_IN_AWAITED =
      AtomicIntegerFieldUpdater.newUpdater(CommandQueue.class, "standInAwaited");
  private static final AtomicIntegerFieldUpdater<CommandQueue> STANDING_IN =
      AtomicIntegerFieldUpdater.newUpdater(CommandQueue.class, "standingIn");

  /** Commands per chunk of the queue: a chunk of 1,024 (netty's default) is 4 KiB per connection. */
  private static final int CHUNK = 32;

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<CommandQueue, Queue> COMMANDS =
      AtomicReferenceFieldUpdater.newUpdater(CommandQueue.class, Queue.class, "commands");

  /**
   * Made by the first command from another thread: many connections never get one, and an idle
   * connection should not hold a queue (its padding and first chunk were 4.7 KiB of the 7.7 KiB an
   * idle server connection held). Only ever set once.
   */
  private volatile Queue<Runnable> commands;
  /**
   * True while the server's acceptor or the client's responder factory runs, before the
   * connection is established (and, on a client, before SETUP is written): what they start through
   * this requester (or the handles it returns) is queued like cross-thread work and runs once the
   * current loop task is over, after acceptance (or fails if the connection was refused).
   */
  boolean deferring;
  private volatile int drainScheduled; // 0 or 1, through DRAIN_SCHEDULED
  /**
   * The loop's full task queue refused a drain: {@link #drainScheduled} stays set (so calls pile
   * up in our queue, not in the loop's), and the drain runs with the next call's hand-off or the
   * loop's next turn for this connection.
   */
  private volatile boolean drainOwed;
  /**
   * The loop rejected a drain: it has shut down. From then on the thread that finds it gone stands
   * in for it once it has terminated (see {@link #standInForLoop}).
   */
  private volatile boolean loopGone;
  /** A listener on the loop's termination will stand in for it. */
  private volatile int standInAwaited; // 0 or 1, through STAND_IN_AWAITED
  /** A thread is standing in for the loop: the queue's one consumer then. */
  private volatile int standingIn; // 0 or 1, through STANDING_IN
  /** On a claim's list (see {@link LoopAffinity}); set and cleared on the loop's thread. */
  boolean claimDrainPending;
  private final Runnable drainTask = this::drainCommands;

  CommandQueue(SluiceConnection conn) {
    this.conn = conn;
    this.loop = conn.loop;
  }

  /** True if the caller may act directly: on the loop with no queued command ahead of it. */
  boolean inLoopInOrder() {
    return loop.inEventLoop() && isEmpty() && !deferring;
  }

  private boolean isEmpty() {
    Queue<Runnable> q = commands;
    return q == null || q.isEmpty();
  }

  @SuppressWarnings("unchecked")
  private Queue<Runnable> queue() {
    Queue<Runnable> q = commands;
    if (q == null) {
      q = PlatformDependent.newMpscQueue(CHUNK, 1 << 30);
      if (!COMMANDS.compareAndSet(this, null, q)) {
        q = commands;
      }
    }
    return q;
  }

  void enqueue(Runnable command) {
    if (!queue().offer(command)) {
      throw new IllegalStateException("2^30 calls are queued for the connection's event loop");
    }
    if (loopGone) {
      standInForLoop();
      return;
    }
    LoopAffinity.Claim claim = LoopAffinity.claimOnLoop(loop);
    if (claim != null && !deferring) {
      // A thread carried by our loop: its scheduler runs this on the loop once the thread yields.
      if (!claimDrainPending) {
        claimDrainPending = true;
        claim.add(this);
      }
      return;
    }
    if (DRAIN_SCHEDULED.compareAndSet(this, 0, 1)) {
      scheduleDrain();
    } else if (drainOwed) {
      drainOwed = false; // the hand-off a full queue refused: try again, there may be room now
      scheduleDrain();
    }
  }

  /**
   * Hands the loop a drain of the command queue. The command that asked for it is queued already
   * (and cannot be taken back out), so it must run: a call takes effect or throws, never both.
   */
  private void scheduleDrain() {
    try {
      loop.execute(drainTask);
    } catch (RejectedExecutionException e) {
      if (!loop.isShutdown()) {
        // The loop lives, but its task queue is full (a bounded maxPendingTasks). The drain is
        // owed, not dropped: the next call retries the hand-off, and the loop itself runs it the
        // next time it works for this connection (a read, a keepalive timer), whichever is first.
        drainOwed = true;
        return;
      }
      loopGone = true; // before the flag is reset: a call that finds it false then sees this
      drainScheduled = 0;
      standInForLoop();
      return;
    }
    if (loop.isShutdown()) {
      // Accepted as the loop shut down: netty may drop such a task at termination (it cannot
      // take it back out of its queue). A stand-in runs it then if the loop did not.
      loopGone = true;
      standInForLoop();
    }
  }

  /** On the loop: runs the drain a full task queue refused (see {@link #scheduleDrain}). */
  void runOwedDrain() {
    if (drainOwed) {
      drainOwed = false;
      drainCommands();
    }
  }

  /**
   * The loop has shut down, so nothing it would have run may be left in the queue: what is there
   * holds messages, and its callers wait for an answer. Once the loop has terminated (it may still
   * be running its last tasks when it starts rejecting new ones), the calling thread stands in for
   * it, or, before that, a listener on its termination does: it closes the connection, failing
   * every stream, and then runs the queued commands as the loop would have, so each takes the way
   * of a closed connection (messages released, listeners told). One thread at a time stands in,
   * so the queue keeps a single consumer. The transport is not touched: its channel was on the
   * loop that is gone.
   */
  private void standInForLoop() {
    if (loop.isTerminated()) {
      runAsStandIn();
    } else if (STAND_IN_AWAITED.compareAndSet(this, 0, 1)) {
      loop.terminationFuture().addListener(f -> runAsStandIn());
    }
  }

  /**
   * Stands in for the terminated loop unless another thread already does (then that one runs
   * what was queued; a call from a listener or command run here returns at once the same way).
   * No lock is held while listeners run: a thread that queues a command just as the stand-in
   * finishes sees the queue non-empty after the stand-in's release and takes over.
   */
  private void runAsStandIn() {
    while (STANDING_IN.compareAndSet(this, 0, 1)) {
      try {
        conn.closeForGoneLoop(); // closes, and runs the queue as on a closed connection
        runAll();
      } finally {
        standingIn = 0;
      }
      if (isEmpty()) {
        return;
      }
    }
  }

  void enqueueOrRun(Runnable command) {
    if (inLoopInOrder()) {
      command.run();
    } else {
      enqueue(command);
    }
  }

  private void drainCommands() {
    for (; ; ) {
      runAll();
      drainScheduled = 0;
      if (isEmpty() || !DRAIN_SCHEDULED.compareAndSet(this, 0, 1)) {
        break;
      }
    }
    conn.out.flushNow();
  }

  /**
   * Runs every queued command now, without a flush. Besides the drain, two callers: the loop's
   * own close (each command then takes the way of a closed connection), and a {@link
   * LoopAffinity} claim right after one of its threads yielded, whose frames join the current
   * batch and go out with the read batch or this loop turn, as the loop's own do (the claim clears
   * {@link #claimDrainPending} once its whole list has run).
   */
  void runAll() {
    Queue<Runnable> q = commands;
    if (q == null) {
      return;
    }
    Runnable r;
    while ((r = q.poll()) != null) {
      runCommand(r);
    }
  }

  private static void runCommand(Runnable r) {
    try {
      r.run();
    } catch (Throwable t) {
      logger.warn("Unexpected failure of a queued stream operation", t);
    }
  }
}
