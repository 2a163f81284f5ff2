package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Acceptor;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.SetupInfo;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.RejectedSetupException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The RSocket protocol engine for one connection, both requester and responder (RSocket is
 * symmetric).
 *
 * <p><b>Threads.</b> All state lives on the transport's event loop and is touched only there: no
 * locks, no atomics on the per-message path. Calls from other threads are queued once in an MPSC
 * queue and drained on the loop in order, batched (the shape of grpc-java's WriteQueue).
 *
 * <p><b>Writes.</b> Frames are encoded without flushing; one flush per inbound read batch or loop
 * turn, plus one part-way through a read batch once {@link #EARLY_FLUSH_FRAMES} wait (or a
 * REQUEST_N the peer may be waiting for) while the peer keeps up. On byte-stream transports, small
 * frames are encoded back to back, each with its u24 length, into one pooled buffer per batch that goes to the transport as a single write; large payloads go
 * as their own buffers without copying.
 *
 * <p><b>Memory.</b> Every table and buffer is bounded by {@link ConnectionOptions}: frame size,
 * reassembled size, live streams, and queued outbound bytes (producers are asked for more only
 * while the transport is writable; reading stops while it is not only once the peer has made us
 * queue output that flow control does not bound, see {@code noteUnpaid}).
 */
public final class SluiceConnection implements Requester, FrameReceiver {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(SluiceConnection.class);

  static final int PAYLOAD_NEXT = Frames.FLAG_NEXT;
  static final int PAYLOAD_COMPLETE = Frames.FLAG_COMPLETE;
  static final int PAYLOAD_NEXT_COMPLETE = Frames.FLAG_NEXT | Frames.FLAG_COMPLETE;

  /** Payloads up to this size are copied into the batch buffer; larger ones are written as is. */
  private static final int COPY_THRESHOLD = 2048;

  private static final int BATCH_SIZE = 64 * 1024;

  /**
   * While a read batch is handled, the frames that wait in the batch buffer are flushed once there
   * are this many (and the peer has taken what we sent before), not only at the end of the batch:
   * a pipelined peer then works on the first answers while we handle the rest, instead of both ends
   * taking turns. Counted in frames, not bytes, so that each flush carries enough frames to pay for
   * its syscall and the peer's wake-up whatever their size (large frames fill the 64 KiB batch,
   * which goes out when full anyway).
   */
  static final int EARLY_FLUSH_FRAMES = 128;

  private static final int AWAITING_SETUP = 0;
  private static final int ESTABLISHED = 1;
  private static final int DRAINING = 2;
  private static final int CLOSED = 3;

  final DuplexTransport transport;
  final EventExecutor loop;
  /**
   * The loop's clock, read for every deadline the engine keeps itself (keepalive, lease, write
   * stall, rate budgets), so that they run on the same time as the loop's timers (a test's loop
   * can run on a clock it moves by hand).
   */
  final Ticker ticker;
  final ByteBufAllocator alloc;
  final int outboundWindow;
  private final ConnectionOptions options;
  private final boolean client;
  private final boolean prefixed;
  private final int mtu;
  private final Acceptor acceptor;
  private Responder responder;

  private int state;
  /**
   * {@link #isOpen()} for other threads: the state is written on the loop only, and a plain read
   * from another thread may be stale for ever. Written with every state change (see {@link
   * #setState}).
   */
  private volatile boolean open = true;
  private final IntObjectHashMap<StreamState> streams = new IntObjectHashMap<>();
  private int activeRequesterStreams;
  private int activeResponderStreams;
  private int nextStreamId;
  /** Highest stream id the peer has opened (or tried to); ids above it were never used. */
  private int maxPeerStreamId;
  /** This side's stream ids wrapped past 2^31-1: every id of ours may have been used. */
  private boolean ownIdsWrapped;

  // Outbound batching.
  private ByteBuf batch;
  /** Frames encoded into {@link #batch}. */
  private int batchFrames;
  private boolean flushPending;
  private boolean flushTaskScheduled;
  private boolean inReadBatch;
  /**
   * A REQUEST_N that the peer may be waiting for was queued while handling the current inbound
   * frame: flush once that frame is handled instead of at the end of the read batch.
   */
  private boolean flushAfterFrame;
  /** The early flush of {@link #flushAfterFrame} already happened in this read batch. */
  private boolean earlyFlushDone;
  // Reading back-pressure: unpaid bytes written since the transport became unwritable.
  private long unpaidWhileUnwritable;
  private boolean readPaused;
  private final Runnable flushTask = this::flushTaskRun;
  private final ArrayDeque<StreamState> blocked = new ArrayDeque<>();
  /** Streams in {@link #blocked} that ended there (removed in bulk, see {@link #unblock}). */
  private int endedWhileBlocked;
  /** The transport is flushing a full batch while a frame is encoded (see beginFrameHead). */
  private boolean flushingMidFrame;
  private boolean pumpBlockedScheduled;
  private final Runnable pumpBlockedTask = this::pumpBlockedLater;
  /**
   * Checks for a write stall; at most one is scheduled, and writability changes neither schedule
   * nor cancel one each time (a busy stream flips writability often): the check reschedules itself
   * while the transport is unwritable and lets go when it is writable.
   */
  private ScheduledFuture<?> writeStallTask;
  /** When the transport last became unwritable (valid while it is unwritable). */
  private long unwritableSinceNanos;
  /** The transport's outbound progress when the stall clock last (re)started; -1 if unknown. */
  private long progressAtStallMark;
  /** A keepalive echo was queued since the transport became unwritable: drop further ones. */
  private boolean echoQueuedWhileUnwritable;

  // Inbound budgets (see ConnectionOptions): per-second frame counts and reassembled bytes.
  private final RateBudget keepAliveBudget;
  private final RateBudget metadataPushBudget;
  private final RateBudget requestNBudget;
  private final RateBudget cancelBudget;
  private final RateBudget streamErrorBudget;
  private final RateBudget ignoredBudget;
  private long reassemblyBytes;

  // Cross-thread commands.
  private final Queue<Runnable> commands = PlatformDependent.newMpscQueue();
  /**
   * True while the server's acceptor or the client's responder factory runs, before the
   * connection is established (and, on a client, before SETUP is written): what they start through
   * this requester (or the handles it returns) is queued like cross-thread work and runs once the
   * current loop task is over, after acceptance (or fails if the connection was refused).
   */
  private boolean deferRequests;
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
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
  private final AtomicBoolean standInAwaited = new AtomicBoolean();
  /** A thread is standing in for the loop: the queue's one consumer then. */
  private final AtomicBoolean standingIn = new AtomicBoolean();
  /** {@link #onClosed} ran (the transport reported the close, or a stand-in did it for it). */
  private boolean closeReported;
  /** A client's {@code transport.start} is running: a close it reports came before the start. */
  private boolean starting;
  /** On a claim's list (see {@link LoopAffinity}); set and cleared on the loop's thread. */
  boolean claimDrainPending;
  private final Runnable drainTask = this::drainCommands;

  // Keepalive.
  private boolean heardFromPeer;
  private long lastHeardNanos;
  private long peerLifetimeNanos;
  private ScheduledFuture<?> keepAliveTask;
  private ScheduledFuture<?> setupTimeoutTask;
  private ScheduledFuture<?> drainTimeoutTask;

  // Lease: what the peer granted us (requester) and what we granted the peer (responder).
  private boolean leaseEnabled;
  private boolean leaseReceived;
  private int leaseAllowed;
  private long leaseExpiresNanos;
  private int leaseGrantedLeft;
  private long leaseGrantExpiresNanos;
  private ScheduledFuture<?> leaseTask;

  private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
  /** Completes when requests may be sent: at once, or at the first LEASE when leasing. */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private Throwable closeCause;

  private SluiceConnection(
      DuplexTransport transport,
      ConnectionOptions options,
      boolean client,
      Acceptor acceptor,
      Responder responder) {
    this.transport = transport;
    this.loop = transport.executor();
    this.ticker = loop.ticker();
    this.alloc = transport.alloc();
    this.options = options;
    this.client = client;
    this.prefixed = transport.framing() == DuplexTransport.Framing.LENGTH_PREFIXED;
    this.mtu = options.mtu();
    this.outboundWindow = options.outboundWindow();
    this.acceptor = acceptor;
    this.responder = responder;
    this.nextStreamId = client ? 1 : 2;
    this.keepAliveBudget = new RateBudget(options.maxKeepAlivesPerSecond(), ticker);
    this.metadataPushBudget = new RateBudget(options.maxMetadataPushesPerSecond(), ticker);
    this.requestNBudget = new RateBudget(options.maxRequestNPerSecond(), ticker);
    this.cancelBudget = new RateBudget(options.maxCancelsPerSecond(), ticker);
    this.streamErrorBudget = new RateBudget(options.maxStreamErrorsPerSecond(), ticker);
    this.ignoredBudget = new RateBudget(options.maxIgnoredFramesPerSecond(), ticker);
  }

  /**
   * Starts the client side of a connection: sends SETUP and is usable at once (RSocket lets a client
   * send requests right after SETUP). Must be called on the transport's event loop.
   *
   * @param responderFactory makes the responder for the server's requests, given this requester
   */
  public static SluiceConnection client(
      DuplexTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<Requester, Responder> responderFactory) {
    SluiceConnection c = new SluiceConnection(transport, options, true, null, null);
    c.deferRequests = true; // requests the factory makes must follow SETUP
    try {
      c.responder = responderFactory.apply(c);
      if (c.responder == null) {
        // Every request of the server would fail later, one swallowed exception each.
        throw new IllegalStateException(
            "the client's responder factory returned null (return a Responder that refuses"
                + " requests instead, e.g. new Responder() {})");
      }
    } catch (Throwable t) {
      if (setup.payload() != null) {
        setup.payload().release();
      }
      // What the factory started through this requester is queued behind a drain: it runs as on
      // a closed connection (no SETUP went out, so nothing may follow it).
      c.closeCause =
          new ConnectionErrorException("the connection did not start: " + Errors.message(t));
      c.setState(CLOSED);
      throw t;
    } finally {
      c.deferRequests = false;
    }
    c.startClient(setup);
    return c;
  }

  /** Starts the server side of a connection: waits for SETUP. Call on the event loop. */
  public static SluiceConnection server(
      DuplexTransport transport, ConnectionOptions options, Acceptor acceptor) {
    SluiceConnection c = new SluiceConnection(transport, options, false, acceptor, null);
    c.startServer();
    return c;
  }

  // ===========================================================================================
  // Lifecycle
  // ===========================================================================================

  private void startClient(ClientSetup setup) {
    setState(ESTABLISHED);
    Message payload = setup.payload();
    starting = true;
    try {
      transport.start(this);
    } finally {
      starting = false;
    }
    if (closeReported) {
      // The transport was closed before it started and said so from start(): no SETUP, no timers.
      if (payload != null) {
        payload.release();
      }
      return;
    }
    leaseEnabled = options.lease();
    try {
      ByteBuf metadata = payload != null && payload.hasMetadata() ? payload.metadata() : null;
      ByteBuf data = payload != null ? payload.data() : Unpooled.EMPTY_BUFFER;
      int size =
          Setup.MIN_SIZE
              + setup.metadataMimeType().length()
              + setup.dataMimeType().length()
              + Frames.payloadSize(metadata, data);
      ByteBuf out = beginFrame(size);
      Setup.write(
          out,
          options.lease(),
          (int) options.keepAliveInterval().toMillis(),
          (int) options.keepAliveMaxLifetime().toMillis(),
          null,
          setup.metadataMimeType(),
          setup.dataMimeType(),
          metadata,
          data);
      endFrame(out);
    } finally {
      if (payload != null) {
        payload.release();
      }
    }
    peerLifetimeNanos = options.keepAliveMaxLifetime().toNanos();
    startKeepAlive(options.keepAliveInterval().toMillis(), true);
    if (leaseEnabled) {
      startLeaseGrants();
    } else {
      ready.complete(null);
    }
    flushNow();
  }

  private void startServer() {
    setState(AWAITING_SETUP);
    transport.start(this);
    long timeout = options.setupTimeout().toMillis();
    setupTimeoutTask =
        loop.schedule(
            () -> {
              if (state == AWAITING_SETUP) {
                connectionError(
                    ErrorCode.INVALID_SETUP, "no SETUP within " + timeout + " ms", null);
              }
            },
            timeout,
            TimeUnit.MILLISECONDS);
  }

  private void startKeepAlive(long intervalMillis, boolean sendKeepAlives) {
    lastHeardNanos = ticker.nanoTime();
    keepAliveTask =
        loop.scheduleAtFixedRate(
            () -> keepAliveTick(sendKeepAlives),
            intervalMillis,
            intervalMillis,
            TimeUnit.MILLISECONDS);
  }

  private void keepAliveTick(boolean sendKeepAlive) {
    if (state == CLOSED) {
      return;
    }
    runOwedDrain();
    long now = ticker.nanoTime();
    if (heardFromPeer) {
      heardFromPeer = false;
      lastHeardNanos = now;
    } else if (now - lastHeardNanos > peerLifetimeNanos) {
      connectionError(
          ErrorCode.CONNECTION_ERROR,
          "no frame from the peer for "
              + TimeUnit.NANOSECONDS.toMillis(now - lastHeardNanos)
              + " ms (keepalive max lifetime)",
          null);
      return;
    }
    if (sendKeepAlive) {
      ByteBuf out = beginFrame(Frames.HEADER_SIZE + 8);
      Frames.writeKeepAlive(out, true, 0, null);
      endFrame(out);
      flushNow();
    }
  }

  private void startLeaseGrants() {
    grantLease();
    long period = Math.max(1, options.leaseTtlMillis() / 2);
    leaseTask = loop.scheduleAtFixedRate(this::grantLease, period, period, TimeUnit.MILLISECONDS);
  }

  private void grantLease() {
    if (state == CLOSED) {
      return;
    }
    leaseGrantedLeft = options.leaseRequests();
    leaseGrantExpiresNanos =
        ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.leaseTtlMillis());
    ByteBuf out = beginFrame(Frames.HEADER_SIZE + 8);
    Frames.writeLease(out, options.leaseTtlMillis(), options.leaseRequests(), null);
    endFrame(out);
    requestFlush();
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  private void setState(int newState) {
    state = newState;
    open = newState == ESTABLISHED || newState == AWAITING_SETUP;
  }

  @Override
  public void close() {
    enqueueOrRun(this::doGracefulClose);
  }

  @Override
  public void dispose() {
    enqueueOrRun(() -> closeNow(new ConnectionErrorException("connection disposed")));
  }

  @Override
  public CompletableFuture<Void> onClose() {
    return closeFuture;
  }

  /**
   * Completes once this side may send requests: right after SETUP, or when leasing, at the peer's
   * first LEASE. Fails if the connection closes first.
   */
  public CompletableFuture<Void> ready() {
    return ready;
  }

  private void doGracefulClose() {
    if (state == CLOSED || state == DRAINING) {
      return;
    }
    if (state == AWAITING_SETUP) {
      closeNow(null);
      return;
    }
    sendError(0, ErrorCode.CONNECTION_CLOSE, "graceful close");
    flushNow();
    startDraining();
  }

  private void startDraining() {
    setState(DRAINING);
    if (streams.isEmpty()) {
      closeNow(null);
      return;
    }
    long millis = options.drainTimeout().toMillis();
    drainTimeoutTask =
        loop.schedule(
            () ->
                closeNow(
                    new ConnectionCloseException(
                        "streams still live after the " + millis + " ms drain timeout")),
            millis,
            TimeUnit.MILLISECONDS);
  }

  /** Sends ERROR on stream 0 and closes at once. */
  void connectionError(int code, String message, Throwable cause) {
    if (state == CLOSED) {
      return;
    }
    sendError(0, code, message);
    // No flush before closeNow: a flush can report writability at once (netty fires it from
    // inside flush), whose handler would pump producers and queue frames behind this ERROR.
    // closeNow flushes after the state is CLOSED, when nothing can be added any more.
    SluiceException local;
    if (cause != null) {
      local = SluiceException.from(code, message);
      local.initCause(cause);
    } else if (code == ErrorCode.CONNECTION_ERROR) {
      local = ConnectionErrorException.stackless(message); // a limit the peer can breach at will
    } else {
      local = SluiceException.from(code, message);
    }
    closeNow(local);
  }

  /** Terminates every stream with {@code cause} (null: clean close) and closes the transport. */
  private void closeNow(Throwable cause) {
    if (state == CLOSED) {
      return;
    }
    setState(CLOSED);
    closeCause = cause;
    cancelTimers();
    flushNow();
    // Streams first: a transport may report the close at once (the local one does), completing
    // onClose(), which must not come before the streams' last signals.
    failAllStreams(cause != null ? cause : new ConnectionCloseException("connection closed"));
    transport.close();
  }

  private void failAllStreams(Throwable cause) {
    if (streams.isEmpty()) {
      return;
    }
    List<StreamState> live = new ArrayList<>(streams.values());
    for (StreamState s : live) {
      boolean notify = !s.terminated;
      s.terminate();
      if (notify) {
        notifyError(s, cause);
      }
    }
  }

  private void cancelTimers() {
    cancel(keepAliveTask);
    cancel(setupTimeoutTask);
    cancel(drainTimeoutTask);
    cancel(leaseTask);
    cancel(writeStallTask);
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }

  @Override
  public void onClosed() {
    if (closeReported) {
      return;
    }
    closeReported = true;
    if (state != CLOSED) {
      if (starting) {
        closeCause =
            new ConnectionErrorException("the transport closed before the connection started");
      }
      setState(CLOSED);
      cancelTimers();
      failAllStreams(new ConnectionErrorException("connection closed by the peer"));
    }
    if (batch != null) {
      batch.release();
      batch = null;
    }
    Runnable r;
    while ((r = commands.poll()) != null) {
      runCommand(r);
    }
    blocked.clear();
    endedWhileBlocked = 0;
    try {
      if (responder != null) {
        responder.onClose(closeCause);
      }
    } catch (Throwable t) {
      logger.warn("Responder.onClose threw", t);
    }
    ready.completeExceptionally(
        closeCause != null ? closeCause : new ConnectionErrorException("connection closed"));
    if (closeCause == null || closeCause instanceof ConnectionCloseException) {
      closeFuture.complete(null);
    } else {
      closeFuture.completeExceptionally(closeCause);
    }
  }

  // ===========================================================================================
  // Cross-thread hand-off
  // ===========================================================================================

  /** True if the caller may act directly: on the loop with no queued command ahead of it. */
  boolean inLoopInOrder() {
    return loop.inEventLoop() && commands.isEmpty() && !deferRequests;
  }

  void enqueue(Runnable command) {
    commands.offer(command);
    if (loopGone) {
      standInForLoop();
      return;
    }
    LoopAffinity.Claim claim = LoopAffinity.claimOnLoop(loop);
    if (claim != null && !deferRequests) {
      // A thread carried by our loop: its scheduler runs this on the loop once the thread yields.
      if (!claimDrainPending) {
        claimDrainPending = true;
        claim.add(this);
      }
      return;
    }
    if (drainScheduled.compareAndSet(false, true)) {
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
      drainScheduled.set(false);
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
  private void runOwedDrain() {
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
    } else if (standInAwaited.compareAndSet(false, true)) {
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
    while (standingIn.compareAndSet(false, true)) {
      try {
        if (state != CLOSED) {
          setState(CLOSED);
          closeCause = new ConnectionErrorException("the connection's event loop has shut down");
          try {
            cancelTimers(); // the loop canceled them as it shut down; this is only a safeguard
          } catch (RejectedExecutionException e) {
            // a timer's cancel handed to the dead loop: nothing left to cancel there
          }
          failAllStreams(closeCause);
        }
        onClosed(); // the transport can no longer report the close; runs the queue if it had not
        Runnable r;
        while ((r = commands.poll()) != null) {
          runCommand(r);
        }
      } finally {
        standingIn.set(false);
      }
      if (commands.isEmpty()) {
        return;
      }
    }
  }

  /**
   * Runs the commands queued by threads carried by this loop, on the loop, right after one of them
   * yielded (see {@link LoopAffinity}). Unlike {@link #drainCommands} it does not flush: the frames
   * join the current batch, flushed with the read batch or this loop turn as the loop's own are.
   * The claim clears {@link #claimDrainPending} once its whole list has run.
   */
  void drainClaimed() {
    Runnable r;
    while ((r = commands.poll()) != null) {
      runCommand(r);
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
      Runnable r;
      while ((r = commands.poll()) != null) {
        runCommand(r);
      }
      drainScheduled.set(false);
      if (commands.isEmpty() || !drainScheduled.compareAndSet(false, true)) {
        break;
      }
    }
    flushNow();
  }

  private static void runCommand(Runnable r) {
    try {
      r.run();
    } catch (Throwable t) {
      logger.warn("Unexpected failure of a queued stream operation", t);
    }
  }

  @Override
  public ByteBufAllocator alloc() {
    return alloc;
  }

  @Override
  public Executor executor() {
    return loop;
  }

  // ===========================================================================================
  // Requester
  // ===========================================================================================

  @Override
  public void fireAndForget(Message request, StreamListener listener) {
    enqueueOrRun(
        () -> {
          Throwable refused = refuseRequest(false);
          if (refused != null) {
            request.release();
            safeError(listener, refused);
            return;
          }
          int id = allocateStreamId();
          sendPayload(id, FrameType.REQUEST_FNF, 0, 0, request);
          safeComplete(listener);
        });
  }

  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    enqueueOrRun(
        () -> {
          if (state != ESTABLISHED) {
            metadata.release();
            safeError(listener, closedException());
            return;
          }
          ByteBuf md = metadata.metadata();
          int frameSize = Frames.HEADER_SIZE + md.readableBytes();
          int largest = Math.min(Frames.MAX_FRAME_SIZE, options.maxFrameSize());
          if (frameSize > largest) {
            // METADATA_PUSH cannot be fragmented: past the u24 length it would put the byte stream
            // out of sync, past the peer's largest frame it gets the connection closed.
            metadata.release();
            safeError(
                listener,
                new IllegalArgumentException(
                    "METADATA_PUSH frame of "
                        + frameSize
                        + " bytes is larger than the largest frame ("
                        + largest
                        + " bytes, ConnectionOptions.maxFrameSize); it cannot be fragmented"));
            return;
          }
          try {
            ByteBuf out = beginFrame(frameSize);
            Frames.writeMetadataPush(out, md);
            endFrame(out);
          } finally {
            metadata.release();
          }
          safeComplete(listener);
        });
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_RESPONSE, true, listener);
    enqueueOrRun(() -> startRequest(s, request, 1, false));
    return s;
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_STREAM, true, listener);
    enqueueOrRun(() -> startRequest(s, request, initialRequest, false));
    return s;
  }

  @Override
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_CHANNEL, true, listener);
    enqueueOrRun(() -> startRequest(s, first, initialRequest, complete));
    return s;
  }

  private void startRequest(StreamState s, Message request, long initialRequest, boolean complete) {
    if (s.terminated) { // canceled before it started
      request.release();
      return;
    }
    if (initialRequest <= 0) {
      request.release();
      s.terminated = true;
      notifyError(
          s, new IllegalArgumentException("initial request must be positive: " + initialRequest));
      return;
    }
    Throwable refused = refuseRequest(true);
    if (refused != null) {
      request.release();
      s.terminated = true;
      notifyError(s, refused);
      return;
    }
    s.id = allocateStreamId();
    register(s);
    int n;
    if (initialRequest >= Integer.MAX_VALUE) {
      s.inboundCredit = StreamState.UNBOUNDED;
      s.inboundUnboundedSent = true;
      n = Integer.MAX_VALUE;
    } else {
      s.inboundCredit = initialRequest;
      n = (int) initialRequest;
    }
    int flags = 0;
    if (s.kind == FrameType.REQUEST_CHANNEL && complete) {
      flags |= Frames.FLAG_COMPLETE;
      s.outboundDone = true;
    }
    sendPayload(s.id, s.kind, flags, n, request);
    if (s.kind != FrameType.REQUEST_CHANNEL) {
      s.outboundDone = true;
    }
  }

  /**
   * Why a new request cannot start now, or null if it can; then it spends a lease permit (only a
   * request that goes out may: the peer counts what it receives).
   *
   * @param stream the request opens a stream (not fire-and-forget), which counts against {@link
   *     ConnectionOptions#maxActiveStreams()}
   */
  private Throwable refuseRequest(boolean stream) {
    if (state == DRAINING) {
      return new ConnectionCloseException("connection is closing; no new requests");
    }
    if (state != ESTABLISHED) {
      return closedException();
    }
    if (stream && activeRequesterStreams >= options.maxActiveStreams()) {
      return RejectedException.stackless(
          "too many live requests on this connection (" + options.maxActiveStreams() + ")");
    }
    if (leaseEnabled) {
      if (!leaseReceived) {
        return RejectedException.stackless("no lease received from the peer yet");
      }
      if (leaseAllowed <= 0 || ticker.nanoTime() - leaseExpiresNanos > 0) {
        return RejectedException.stackless("lease exhausted or expired");
      }
      leaseAllowed--;
    }
    return null;
  }

  private Throwable closedException() {
    return closeCause != null
        ? new ConnectionErrorException("connection closed: " + Errors.message(closeCause))
        : new ConnectionErrorException("connection closed");
  }

  private int allocateStreamId() {
    // Ids step by 2 from 1 (client) or 2 (server); past 2^31-1 they wrap, skipping live ids.
    for (; ; ) {
      int id = nextStreamId;
      nextStreamId += 2;
      if (nextStreamId <= 0) {
        nextStreamId = client ? 1 : 2;
        ownIdsWrapped = true;
      }
      if (!streams.containsKey(id)) {
        return id;
      }
    }
  }

  private void register(StreamState s) {
    streams.put(s.id, s);
    s.registered = true;
    if (s.requester) {
      activeRequesterStreams++;
    } else {
      activeResponderStreams++;
    }
  }

  void unregister(StreamState s) {
    if (!s.registered) {
      return;
    }
    s.registered = false;
    streams.remove(s.id);
    if (s.requester) {
      activeRequesterStreams--;
    } else {
      activeResponderStreams--;
    }
    if (state == DRAINING && streams.isEmpty()) {
      // Not right here: a stream is unregistered before its last signals reach its listener (the
      // final message, onComplete), and the connection must close after those, not before.
      loop.execute(this::closeIfDrained);
    }
  }

  private void closeIfDrained() {
    if (state == DRAINING && streams.isEmpty()) {
      closeNow(null);
    }
  }

  /**
   * Counts an outbound frame a peer can make us write without paying for it with REQUEST_N
   * credit: ERRORs and rejections, CANCELs, keepalive echoes, request-response answers. While the
   * transport is unwritable, more than {@link ConnectionOptions#maxQueuedOutboundBytes()} of
   * those stops reading until it is writable again: a peer that floods requests (or keepalives)
   * and never reads the answers is paused instead of growing our outbound buffer.
   */
  void noteUnpaid(int bytes) {
    if (transport.isWritable()) {
      return;
    }
    unpaidWhileUnwritable += bytes;
    if (!readPaused && unpaidWhileUnwritable > options.maxQueuedOutboundBytes()) {
      readPaused = true;
      transport.setReadEnabled(false);
    }
  }

  void block(StreamState s) {
    if (!s.blocked) {
      s.blocked = true;
      blocked.add(s);
    }
  }

  /**
   * A stream waiting in {@link #blocked} ended. Removing it there would be a scan per stream, so
   * ended streams are counted and dropped all at once when they make half of the list: it holds at
   * most about twice the live streams, whatever a peer that opens and ends streams while it reads
   * slowly does.
   */
  void endedWhileBlocked() {
    if (++endedWhileBlocked >= 16 && endedWhileBlocked * 2 >= blocked.size()) {
      blocked.removeIf(st -> st.terminated);
      endedWhileBlocked = 0;
    }
  }

  // ===========================================================================================
  // Inbound
  // ===========================================================================================

  @Override
  public int maxFrameSize() {
    return options.maxFrameSize();
  }

  @Override
  public int maxQueuedOutboundBytes() {
    return options.maxQueuedOutboundBytes();
  }

  @Override
  public void onReadComplete() {
    runOwedDrain();
    inReadBatch = false;
    flushAfterFrame = false;
    earlyFlushDone = false;
    flushNow();
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (state == CLOSED) {
      return;
    }
    // Unwritable alone does not stop reading: flow-controlled output is already paused by the
    // pump, and two peers streaming both ways would each wait for the other to read, forever.
    // Reading stops only once the peer made us queue too much it does not pay for with credit
    // (see noteUnpaid).
    if (!writable) {
      unwritableSinceNanos = ticker.nanoTime();
      progressAtStallMark = transport.outboundProgress();
      if (writeStallTask == null) {
        writeStallTask =
            loop.schedule(
                this::checkWriteStall,
                options.writeStallTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
      }
      return;
    }
    echoQueuedWhileUnwritable = false;
    unpaidWhileUnwritable = 0;
    if (readPaused) {
      readPaused = false;
      transport.setReadEnabled(true);
    }
    if (flushingMidFrame) {
      // Reported from inside the flush of a full batch, while a frame (or one of the fragments
      // of a message) is being encoded: a producer pumped now would write its stream's next
      // frame ahead of the rest of that message. Pump once the encoding is over.
      if (!pumpBlockedScheduled) {
        pumpBlockedScheduled = true;
        loop.execute(pumpBlockedTask);
      }
      return;
    }
    pumpBlocked();
  }

  private void pumpBlockedLater() {
    pumpBlockedScheduled = false;
    if (state != CLOSED && transport.isWritable()) {
      pumpBlocked();
    }
  }

  /** Gives the streams that waited for writability their turn, while the transport stays so. */
  private void pumpBlocked() {
    int n = blocked.size();
    for (int i = 0; i < n && transport.isWritable(); i++) {
      StreamState s = blocked.poll();
      if (s == null || state == CLOSED) {
        break; // a pump's producer closed the connection (its close cleared the queue)
      }
      s.blocked = false;
      if (s.terminated) {
        endedWhileBlocked--;
        continue;
      }
      s.pump();
    }
    requestFlush();
  }

  private void checkWriteStall() {
    writeStallTask = null;
    if (state == CLOSED || transport.isWritable()) {
      return;
    }
    long now = ticker.nanoTime();
    long timeout = options.writeStallTimeout().toNanos();
    long progress = transport.outboundProgress();
    if (progress > progressAtStallMark) {
      // A slow reader, not a stalled one: the peer took some of our output. Start over.
      progressAtStallMark = progress;
      unwritableSinceNanos = now;
    }
    long stalled = now - unwritableSinceNanos;
    if (stalled < timeout) {
      writeStallTask =
          loop.schedule(this::checkWriteStall, timeout - stalled, TimeUnit.NANOSECONDS);
      return;
    }
    connectionError(
        ErrorCode.CONNECTION_ERROR,
        "the peer read nothing for "
            + TimeUnit.NANOSECONDS.toMillis(stalled)
            + " ms while our output was queued (write stall timeout)",
        null);
  }

  /**
   * Counts one frame of a rate-limited kind; on a breach sends ERROR[CONNECTION_ERROR], closes,
   * and returns true (the caller drops the frame).
   */
  private boolean overBudget(RateBudget budget, String what) {
    if (budget.take()) {
      return false;
    }
    connectionError(
        ErrorCode.CONNECTION_ERROR,
        "more than " + budget.limit() + " " + what + " per second",
        null);
    return true;
  }

  /**
   * Counts a frame the spec lets us ignore, or one that broke a stream-level rule: harmless one by
   * one, but a peer sending floods of them is cut off.
   */
  private void countIgnored() {
    overBudget(ignoredBudget, "ignored or invalid frames");
  }

  @Override
  public void onTransportError(Throwable cause) {
    connectionError(ErrorCode.CONNECTION_ERROR, Errors.message(cause), cause);
  }

  @Override
  public void onFrame(ByteBuf frame) {
    if (state == CLOSED) {
      return;
    }
    inReadBatch = true;
    heardFromPeer = true;
    try {
      String malformed = FrameValidator.validate(frame);
      if (malformed != null) {
        if (malformed == FrameValidator.UNKNOWN_TYPE
            && frame.readableBytes() >= Frames.HEADER_SIZE
            && Frames.hasFlag(frame, Frames.FLAG_IGNORE)) {
          countIgnored();
          return; // unknown type the peer says we may ignore
        }
        // Before establishment a broken frame is a broken SETUP: answer with a setup-class code.
        int code = state == AWAITING_SETUP ? ErrorCode.INVALID_SETUP : ErrorCode.CONNECTION_ERROR;
        connectionError(code, "malformed frame: " + malformed, null);
        return;
      }
      if (state == AWAITING_SETUP) {
        onSetupPhaseFrame(frame);
        return;
      }
      int streamId = Frames.streamId(frame);
      if (streamId == 0) {
        onConnectionFrame(frame);
      } else {
        onStreamFrame(streamId, frame);
      }
    } catch (Throwable t) {
      // Nothing a peer sends may escape the connection: a bug here becomes a connection error.
      logger.warn("Unexpected failure handling {}", Frames.describe(frame), t);
      connectionError(ErrorCode.CONNECTION_ERROR, "internal error", t);
    }
    if (flushAfterFrame) {
      flushAfterFrame = false;
      earlyFlushDone = true;
      if (state != CLOSED) {
        flushNow();
      }
    } else if (batch != null
        && batchFrames >= EARLY_FLUSH_FRAMES
        && state != CLOSED
        && transport.unsentBytes() == 0) {
      flushNow();
    }
  }

  // ---- setup ------------------------------------------------------------------------------

  private void onSetupPhaseFrame(ByteBuf frame) {
    int type = Frames.type(frame);
    if (Frames.streamId(frame) != 0 || (type != FrameType.SETUP && type != FrameType.RESUME)) {
      connectionError(
          ErrorCode.INVALID_SETUP,
          "first frame must be SETUP or RESUME on stream 0, got " + Frames.describe(frame),
          null);
      return;
    }
    if (type == FrameType.RESUME) {
      connectionError(ErrorCode.REJECTED_RESUME, "resumption is not supported", null);
      return;
    }
    if (Setup.majorVersion(frame) != Frames.MAJOR_VERSION) {
      connectionError(
          ErrorCode.UNSUPPORTED_SETUP,
          "unsupported version " + Setup.majorVersion(frame) + "." + Setup.minorVersion(frame),
          null);
      return;
    }
    int keepAlive = Setup.keepAliveInterval(frame);
    int lifetime = Setup.maxLifetime(frame);
    if (keepAlive <= 0 || lifetime <= 0) {
      connectionError(
          ErrorCode.INVALID_SETUP,
          "keepalive interval and max lifetime must be positive, got "
              + keepAlive
              + " and "
              + lifetime,
          null);
      return;
    }
    if (Setup.resumeRequested(frame)) {
      connectionError(ErrorCode.REJECTED_SETUP, "resumption is not supported", null);
      return;
    }
    cancel(setupTimeoutTask);
    ByteBuf md = Frames.metadata(frame);
    Message payload =
        Message.of(
            md == null ? null : md.retain(), Frames.data(frame).retain());
    SetupView view = new SetupView(frame, payload);
    Responder accepted;
    deferRequests = true; // requests the acceptor makes start once it has accepted
    try {
      accepted = acceptor.accept(view, this);
      if (accepted == null) {
        throw new RejectedSetupException("acceptor returned no responder");
      }
    } catch (Throwable t) {
      int code = ErrorCode.REJECTED_SETUP;
      if (t instanceof SluiceException
          && ((SluiceException) t).errorCode() >= ErrorCode.INVALID_SETUP
          && ((SluiceException) t).errorCode() <= ErrorCode.REJECTED_SETUP) {
        code = ((SluiceException) t).errorCode();
      }
      connectionError(code, Errors.message(t), null);
      return;
    } finally {
      deferRequests = false;
      payload.release();
    }
    responder = accepted;
    setState(ESTABLISHED);
    // The client chooses, within the server's bounds: a lifetime no longer than the ceiling, and
    // a check period no shorter than the floor (nor longer than the lifetime).
    long lifetimeMillis = Math.min(lifetime, options.maxPeerKeepAliveLifetime().toMillis());
    long checkMillis =
        Math.max(options.minPeerKeepAliveInterval().toMillis(), Math.min(keepAlive, lifetimeMillis));
    peerLifetimeNanos = TimeUnit.MILLISECONDS.toNanos(lifetimeMillis);
    // The server does not send keepalives (rsocket-java#1128), it only checks the client's.
    startKeepAlive(checkMillis, false);
    if (Setup.leaseRequested(frame)) {
      leaseEnabled = true;
      startLeaseGrants();
    }
  }

  private static final class SetupView implements SetupInfo {
    private final int major;
    private final int minor;
    private final int keepAlive;
    private final int lifetime;
    private final String metadataMime;
    private final String dataMime;
    private final boolean lease;
    private final Message payload;

    SetupView(ByteBuf frame, Message payload) {
      major = Setup.majorVersion(frame);
      minor = Setup.minorVersion(frame);
      keepAlive = Setup.keepAliveInterval(frame);
      lifetime = Setup.maxLifetime(frame);
      metadataMime = Setup.metadataMimeType(frame);
      dataMime = Setup.dataMimeType(frame);
      lease = Setup.leaseRequested(frame);
      this.payload = payload;
    }

    @Override
    public int majorVersion() {
      return major;
    }

    @Override
    public int minorVersion() {
      return minor;
    }

    @Override
    public int keepAliveIntervalMillis() {
      return keepAlive;
    }

    @Override
    public int keepAliveMaxLifetimeMillis() {
      return lifetime;
    }

    @Override
    public String metadataMimeType() {
      return metadataMime;
    }

    @Override
    public String dataMimeType() {
      return dataMime;
    }

    @Override
    public boolean leaseRequested() {
      return lease;
    }

    @Override
    public Message payload() {
      return payload;
    }
  }

  // ---- stream 0 ---------------------------------------------------------------------------

  private void onConnectionFrame(ByteBuf frame) {
    int type = Frames.type(frame);
    switch (type) {
      case FrameType.KEEPALIVE:
        if (overBudget(keepAliveBudget, "KEEPALIVE frames")) {
          return;
        }
        if (Frames.keepAliveData(frame).readableBytes() > options.maxKeepAliveDataSize()) {
          connectionError(
              ErrorCode.CONNECTION_ERROR,
              "KEEPALIVE data larger than " + options.maxKeepAliveDataSize() + " bytes",
              null);
          return;
        }
        if (Frames.hasFlag(frame, Frames.FLAG_KEEPALIVE_RESPOND)) {
          if (!transport.isWritable()) {
            // At most one echo waits for a peer that does not read: the rest are dropped.
            if (echoQueuedWhileUnwritable) {
              return;
            }
            echoQueuedWhileUnwritable = true;
          }
          ByteBuf data = Frames.keepAliveData(frame);
          noteUnpaid(Frames.HEADER_SIZE + 8 + data.readableBytes());
          ByteBuf out = beginFrame(Frames.HEADER_SIZE + 8 + data.readableBytes());
          Frames.writeKeepAlive(out, false, 0, data);
          endFrame(out);
        }
        return;
      case FrameType.ERROR:
        onConnectionErrorFrame(frame);
        return;
      case FrameType.METADATA_PUSH:
        {
          if (overBudget(metadataPushBudget, "METADATA_PUSH frames")) {
            return;
          }
          ByteBuf md = Frames.metadata(frame);
          if (md != null && md.readableBytes() > options.maxMetadataPushSize()) {
            connectionError(
                ErrorCode.CONNECTION_ERROR,
                "METADATA_PUSH larger than " + options.maxMetadataPushSize() + " bytes",
                null);
            return;
          }
          Message m = Message.of(md == null ? Unpooled.EMPTY_BUFFER : md.retain(), Unpooled.EMPTY_BUFFER);
          try {
            responder.metadataPush(m);
          } catch (Throwable t) {
            logger.warn("Responder.metadataPush threw", t);
          }
          return;
        }
      case FrameType.LEASE:
        if (leaseEnabled) {
          leaseReceived = true;
          leaseAllowed = Frames.leaseRequests(frame);
          leaseExpiresNanos =
              ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Frames.leaseTtl(frame));
          // Last: dependents of ready() run right here and may send requests under this lease.
          ready.complete(null);
        }
        return;
      case FrameType.SETUP: // a second SETUP (server) or any SETUP (client) is ignored
      case FrameType.RESUME_OK:
      case FrameType.EXT:
      case FrameType.CANCEL: // CANCEL, PAYLOAD and REQUEST_N on stream 0 are ignored (spec)
      case FrameType.PAYLOAD:
      case FrameType.REQUEST_N:
        countIgnored();
        return;
      case FrameType.RESUME:
        connectionError(ErrorCode.REJECTED_RESUME, "resumption is not supported", null);
        return;
      default:
        connectionError(
            ErrorCode.CONNECTION_ERROR, Frames.describe(frame) + " is not valid on stream 0", null);
    }
  }

  private void onConnectionErrorFrame(ByteBuf frame) {
    int code = Frames.errorCode(frame);
    String message = Frames.errorMessage(frame);
    if (code == ErrorCode.CONNECTION_CLOSE) {
      if (state == ESTABLISHED) {
        startDraining();
      }
      return;
    }
    if (!client && code >= ErrorCode.INVALID_SETUP && code <= ErrorCode.REJECTED_RESUME) {
      return; // a server ignores setup-class errors (spec)
    }
    closeNow(SluiceException.from(code, message));
  }

  // ---- streams ------------------------------------------------------------------------------

  private void onStreamFrame(int streamId, ByteBuf frame) {
    int type = Frames.type(frame);
    if (FrameType.isConnectionScoped(type)) {
      if (type == FrameType.METADATA_PUSH) {
        countIgnored();
        return; // METADATA_PUSH on a stream is ignored (spec)
      }
      connectionError(
          ErrorCode.CONNECTION_ERROR, Frames.describe(frame) + " is only valid on stream 0", null);
      return;
    }
    StreamState s = streams.get(streamId);
    if (s == null) {
      if (FrameType.isRequest(type)) {
        onNewRequest(streamId, type, frame);
      } else if (neverUsed(streamId)) {
        // REQUEST_N, CANCEL, PAYLOAD, ERROR and EXT on unknown ids are ignored (spec). Only ids
        // that were never opened count against the budget: frames for a stream that ended are
        // normal races (PAYLOADs in flight after our CANCEL, a REQUEST_N after our COMPLETE), and
        // dropping them costs one table lookup.
        countIgnored();
      }
      return;
    }
    switch (type) {
      case FrameType.PAYLOAD:
        onPayload(s, frame);
        return;
      case FrameType.REQUEST_N:
        {
          if (overBudget(requestNBudget, "REQUEST_N frames")) {
            return;
          }
          int n = Frames.requestN(frame);
          if (n <= 0) {
            streamViolation(s, "REQUEST_N must be positive");
            return;
          }
          if (!s.requester || s.kind == FrameType.REQUEST_CHANNEL) {
            s.onPeerRequest(n);
          }
          return;
        }
      case FrameType.CANCEL:
        if (overBudget(cancelBudget, "CANCEL frames")) {
          return;
        }
        onCancelFrame(s);
        return;
      case FrameType.ERROR:
        {
          if (overBudget(streamErrorBudget, "stream ERROR frames")) {
            return;
          }
          int code = Frames.errorCode(frame);
          SluiceException e = SluiceException.from(code, Frames.errorMessage(frame));
          boolean notify = !s.terminated;
          s.terminate();
          if (notify) {
            notifyError(s, e);
          }
          return;
        }
      case FrameType.REQUEST_RESPONSE:
      case FrameType.REQUEST_FNF:
      case FrameType.REQUEST_STREAM:
      case FrameType.REQUEST_CHANNEL:
        countIgnored();
        return; // a request on an id in use is ignored (spec)
      default:
        countIgnored();
        return; // EXT
    }
  }

  private void onCancelFrame(StreamState s) {
    if (s.requester) {
      // Only a channel requester has an outbound half the responder can cancel.
      if (s.kind == FrameType.REQUEST_CHANNEL && !s.outboundDone) {
        s.outboundDone = true;
        notifyCancel(s);
        if (s.inboundDone) {
          s.terminate();
        }
      }
      return;
    }
    boolean notify = !s.terminated;
    s.terminate();
    if (notify) {
      notifyCancel(s);
    }
  }

  /** True if no stream was ever opened with {@code streamId} on this connection. */
  private boolean neverUsed(int streamId) {
    boolean peerParity = client ? (streamId & 1) == 0 : (streamId & 1) == 1;
    if (peerParity) {
      return streamId > maxPeerStreamId;
    }
    return !ownIdsWrapped && streamId >= nextStreamId;
  }

  private void onNewRequest(int streamId, int type, ByteBuf frame) {
    boolean peerParity = client ? (streamId & 1) == 0 : (streamId & 1) == 1;
    if (peerParity && streamId > maxPeerStreamId) {
      maxPeerStreamId = streamId;
    }
    if (!peerParity) {
      connectionError(
          ErrorCode.CONNECTION_ERROR,
          "request on stream " + streamId + " which has this side's parity",
          null);
      return;
    }
    if (state == DRAINING) {
      if (type != FrameType.REQUEST_FNF) {
        sendError(streamId, ErrorCode.REJECTED, "connection is closing");
      }
      return;
    }
    if (leaseEnabled) { // we granted leases: a request beyond them is REJECTED unprocessed
      if (leaseGrantedLeft <= 0 || ticker.nanoTime() - leaseGrantExpiresNanos > 0) {
        if (type != FrameType.REQUEST_FNF) {
          sendError(streamId, ErrorCode.REJECTED, "no lease");
        }
        return;
      }
      leaseGrantedLeft--;
    }
    // FOLLOWS together with COMPLETE: FOLLOWS is ignored (spec).
    boolean follows =
        Frames.hasFlag(frame, Frames.FLAG_FOLLOWS) && !Frames.hasFlag(frame, Frames.FLAG_COMPLETE);
    if (type == FrameType.REQUEST_FNF && !follows) {
      deliverFireAndForget(messageOf(frame));
      return;
    }
    if (activeResponderStreams >= options.maxActiveStreams()) {
      if (type != FrameType.REQUEST_FNF) {
        sendError(
            streamId,
            ErrorCode.REJECTED,
            "too many live streams (" + options.maxActiveStreams() + ")");
      }
      return;
    }
    int initialN = 0;
    if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
      initialN = Frames.initialRequestN(frame);
      if (initialN <= 0) {
        sendError(streamId, ErrorCode.INVALID, "initial request N must be positive");
        return;
      }
    }
    int kind = type == FrameType.REQUEST_FNF ? FrameType.REQUEST_RESPONSE : type;
    StreamState s = new StreamState(this, kind, false, null);
    s.id = streamId;
    register(s);
    if (follows) {
      s.startFragments(alloc, type, Frames.flags(frame), initialN);
      appendFragmentOrFail(s, frame);
      return;
    }
    startResponder(s, type, Frames.flags(frame), initialN, messageOf(frame));
  }

  private void deliverFireAndForget(Message m) {
    try {
      responder.fireAndForget(m);
    } catch (Throwable t) {
      logger.warn("Responder.fireAndForget threw", t);
    }
  }

  private void startResponder(StreamState s, int type, int flags, int initialN, Message request) {
    if (type == FrameType.REQUEST_FNF) {
      s.terminate();
      deliverFireAndForget(request);
      return;
    }
    StreamListener l;
    try {
      switch (type) {
        case FrameType.REQUEST_RESPONSE:
          l = responder.requestResponse(request, s);
          break;
        case FrameType.REQUEST_STREAM:
          l = responder.requestStream(request, s);
          break;
        default:
          boolean complete = (flags & Frames.FLAG_COMPLETE) != 0;
          if (complete) {
            s.inboundDone = true;
          }
          l = responder.requestChannel(request, complete, s);
          break;
      }
    } catch (Throwable t) {
      s.listener = null;
      s.doError(t);
      return;
    }
    if (l == null) {
      s.doError(new IllegalStateException("responder returned no StreamListener"));
      return;
    }
    s.listener = l;
    if (s.terminated) {
      Throwable failed = s.errorBeforeListener;
      if (failed != null) {
        s.errorBeforeListener = null;
        notifyError(s, failed); // the listener must learn its stream failed, or it waits forever
      }
      return;
    }
    s.onPeerRequest(type == FrameType.REQUEST_RESPONSE ? 1 : initialN);
  }

  private void onPayload(StreamState s, ByteBuf frame) {
    int flags = Frames.flags(frame);
    if (s.reassembling()) {
      if (!appendFragmentOrFail(s, frame)) {
        return;
      }
      if ((flags & Frames.FLAG_FOLLOWS) != 0 && (flags & Frames.FLAG_COMPLETE) == 0) {
        return;
      }
      int completeFlag = flags & Frames.FLAG_COMPLETE;
      int firstType = s.fragType();
      int firstFlags = s.fragFlags();
      int firstInitialN = s.fragInitialN();
      Message m = s.takeFragments();
      if (firstType != FrameType.PAYLOAD && !s.requester && s.listener == null) {
        startResponder(s, firstType, firstFlags | completeFlag, firstInitialN, m);
        return;
      }
      deliverPayload(s, Frames.FLAG_NEXT | completeFlag, m);
      return;
    }
    if ((flags & Frames.FLAG_FOLLOWS) != 0 && (flags & Frames.FLAG_COMPLETE) == 0) {
      s.startFragments(alloc, FrameType.PAYLOAD, flags, 0);
      appendFragmentOrFail(s, frame);
      return;
    }
    boolean next = (flags & Frames.FLAG_NEXT) != 0;
    deliverPayload(s, flags, next ? messageOf(frame) : null);
  }

  private boolean appendFragmentOrFail(StreamState s, ByteBuf frame) {
    ByteBuf metadata = Frames.metadata(frame);
    ByteBuf data = Frames.data(frame);
    boolean follows =
        Frames.hasFlag(frame, Frames.FLAG_FOLLOWS) && !Frames.hasFlag(frame, Frames.FLAG_COMPLETE);
    if (follows && data.readableBytes() == 0 && (metadata == null || !metadata.isReadable())) {
      streamViolation(s, "empty fragment");
      return false;
    }
    if (s.fragCount() >= options.maxFragmentsPerMessage()) {
      streamViolation(
          s, "fragmented message in more than " + options.maxFragmentsPerMessage() + " fragments");
      return false;
    }
    int add = (metadata == null ? 0 : metadata.readableBytes()) + data.readableBytes();
    if (reassemblyBytes + add > options.maxReassemblyBytes()) {
      connectionError(
          ErrorCode.CONNECTION_ERROR,
          "fragmented messages in progress hold more than "
              + options.maxReassemblyBytes()
              + " bytes",
          null);
      return false;
    }
    if (!s.appendFragment(alloc, metadata, data, options.maxReassembledSize())) {
      streamViolation(
          s, "fragmented message larger than " + options.maxReassembledSize() + " bytes");
      return false;
    }
    reassemblyBytes += add;
    return true;
  }

  /** Delivers an inbound PAYLOAD's signals; {@code m} is null when there is no N flag. */
  private void deliverPayload(StreamState s, int flags, Message m) {
    boolean next = (flags & Frames.FLAG_NEXT) != 0;
    boolean complete = (flags & Frames.FLAG_COMPLETE) != 0;
    if (s.inboundDone || s.terminated || (!s.requester && s.kind != FrameType.REQUEST_CHANNEL)) {
      if (m != null) {
        m.release(); // no inbound half here (or it ended): ignore
      }
      countIgnored();
      return;
    }
    if (!next && !complete) {
      streamViolation(s, "PAYLOAD with neither NEXT nor COMPLETE");
      return;
    }
    if (next) {
      if (s.kind == FrameType.REQUEST_RESPONSE) {
        // Any PAYLOAD answering a request-response completes it (spec).
        s.terminate();
        notifyNext(s, m);
        notifyComplete(s);
        return;
      }
      if (s.inboundCredit != StreamState.UNBOUNDED) {
        if (s.inboundCredit <= 0) {
          m.release();
          streamViolation(s, "peer sent more messages than it was granted");
          return;
        }
        s.inboundCredit--;
      }
      notifyNext(s, m);
    }
    if (complete && !s.terminated) {
      s.inboundDone = true;
      if (s.outboundDone) {
        s.terminate();
      }
      notifyComplete(s);
    }
  }

  /** The peer broke a stream-level rule: end the stream, tell both sides. */
  private void streamViolation(StreamState s, String what) {
    boolean notify = !s.terminated && s.listener != null;
    if (s.requester) {
      sendCancel(s.id);
    } else {
      sendError(s.id, ErrorCode.INVALID, what);
    }
    s.terminate();
    if (notify) {
      notifyError(s, StreamState.invalid(what));
    }
    countIgnored();
  }

  private Message messageOf(ByteBuf frame) {
    int ri = frame.readerIndex();
    // The header's type and flags in one read: every read of a pooled buffer checks its indexes
    // and reference count, and the general accessors below read them three to five times.
    int typeAndFlags = frame.getUnsignedShort(ri + 4);
    int type = typeAndFlags >>> 10;
    if (type == FrameType.SETUP || !FrameType.hasMetadataLength(type)) {
      ByteBuf md = Frames.metadata(frame);
      ByteBuf data = Frames.data(frame);
      return Message.of(md == null ? null : md.retain(), data.retain());
    }
    int start = ri + Frames.payloadOffset(type);
    ByteBuf md = null;
    if ((typeAndFlags & Frames.FLAG_METADATA) != 0) {
      int length = Frames.getU24(frame, start); // the validator checked that it fits
      start += Frames.METADATA_LENGTH_SIZE;
      md = frame.slice(start, length).retain();
      start += length;
    }
    // slice().retain(), not retainedSlice(): the message shares the frame's reference count, as
    // every other message of the engine does.
    return Message.of(md, frame.slice(start, frame.writerIndex() - start).retain());
  }

  // ---- listener calls: a throwing listener fails its stream, never the connection ---------------

  void notifyNext(StreamState s, Message m) {
    try {
      s.listener.onNext(m);
    } catch (Throwable t) {
      listenerFailed(s, t);
    }
  }

  void notifyComplete(StreamState s) {
    try {
      s.listener.onComplete();
    } catch (Throwable t) {
      listenerFailed(s, t);
    }
  }

  void notifyError(StreamState s, Throwable cause) {
    if (s.listener == null) {
      // A responder's stream that failed while its responder method ran (the handler's own thread,
      // run at once, let queued work close the connection): startResponder passes it on.
      if (s.errorBeforeListener == null) {
        s.errorBeforeListener = cause;
      }
      return;
    }
    try {
      s.listener.onError(cause);
    } catch (Throwable t) {
      logger.warn("StreamListener.onError threw", t);
    }
  }

  void notifyRequest(StreamState s, long n) {
    try {
      s.listener.onRequest(n);
    } catch (Throwable t) {
      listenerFailed(s, t);
    }
  }

  void notifyCancel(StreamState s) {
    if (s.listener == null) {
      return;
    }
    try {
      s.listener.onCancel();
    } catch (Throwable t) {
      logger.warn("StreamListener.onCancel threw", t);
    }
  }

  private void listenerFailed(StreamState s, Throwable t) {
    logger.warn("StreamListener threw; failing {}", s, t);
    if (!s.terminated) {
      s.failLocally(t);
    }
  }

  private static void safeComplete(StreamListener l) {
    try {
      l.onComplete();
    } catch (Throwable t) {
      logger.warn("StreamListener.onComplete threw", t);
    }
  }

  private static void safeError(StreamListener l, Throwable cause) {
    try {
      l.onError(cause);
    } catch (Throwable t) {
      logger.warn("StreamListener.onError threw", t);
    }
  }

  // ===========================================================================================
  // Outbound
  // ===========================================================================================

  /**
   * Writes a request or PAYLOAD frame carrying {@code message} (null: no payload, for PAYLOAD C),
   * fragmenting it above the MTU. Takes ownership of {@code message}.
   */
  void sendPayload(int streamId, int type, int flags, int initialN, Message message) {
    if (state == CLOSED) {
      if (message != null) {
        message.release();
      }
      return;
    }
    ByteBuf metadata = message != null && message.hasMetadata() ? message.metadata() : null;
    ByteBuf data = message != null ? message.data() : null;
    int headerSize = Frames.requestHeaderSize(type);
    int payloadSize = Frames.payloadSize(metadata, data);
    int frameSize = headerSize + payloadSize;
    if (metadata != null) {
      flags |= Frames.FLAG_METADATA;
    }
    int limit = mtu > 0 ? mtu - 3 : Frames.MAX_FRAME_SIZE;
    if (frameSize > limit) {
      try {
        writeFragments(streamId, type, flags, initialN, metadata, data, limit);
      } finally {
        message.release();
      }
      return;
    }
    if (payloadSize <= COPY_THRESHOLD) {
      ByteBuf out = beginFrame(frameSize);
      Frames.writeRequestHeader(out, streamId, type, flags, initialN);
      Frames.writePayload(out, metadata, data);
      endFrame(out);
      if (message != null) {
        message.release();
      }
      return;
    }
    // Large payload: header (and metadata length) in one small buffer, payload buffers as they are.
    int headLength = headerSize + (metadata != null ? Frames.METADATA_LENGTH_SIZE : 0);
    ByteBuf head;
    if (prefixed) {
      head = beginFrameHead(frameSize, headLength);
    } else {
      head = alloc.ioBuffer(headLength);
    }
    Frames.writeRequestHeader(head, streamId, type, flags, initialN);
    if (metadata != null) {
      Frames.writeU24(head, metadata.readableBytes());
    }
    if (prefixed) {
      transport.write(head);
      batch = null;
      if (metadata != null) {
        transport.write(metadata);
      }
      transport.write(data);
    } else {
      io.netty.buffer.CompositeByteBuf composite = alloc.compositeBuffer(3);
      composite.addComponent(true, head);
      if (metadata != null) {
        composite.addComponent(true, metadata);
      }
      composite.addComponent(true, data);
      transport.write(composite);
    }
    requestFlush();
  }

  private void writeFragments(
      int streamId, int type, int flags, int initialN, ByteBuf metadata, ByteBuf data, int limit) {
    ByteBuf md = metadata == null ? null : metadata.duplicate();
    ByteBuf d = data == null ? Unpooled.EMPTY_BUFFER : data.duplicate();
    boolean first = true;
    int finalFlags = flags & (Frames.FLAG_COMPLETE);
    while (true) {
      int frameType = first ? type : FrameType.PAYLOAD;
      int room = limit - Frames.requestHeaderSize(frameType);
      boolean withMetadata = md != null && (first || md.isReadable());
      if (withMetadata) {
        room -= Frames.METADATA_LENGTH_SIZE;
      }
      int mdTake = withMetadata ? Math.min(room, md.readableBytes()) : 0;
      room -= mdTake;
      int dTake = Math.min(room, d.readableBytes());
      boolean last = (md == null || md.readableBytes() == mdTake) && d.readableBytes() == dTake;
      int f;
      if (first) {
        // The first fragment keeps the original type's flags, minus COMPLETE (F with C is invalid).
        f = (flags & ~Frames.FLAG_COMPLETE & ~Frames.FLAG_METADATA) | Frames.FLAG_FOLLOWS;
        if (last) {
          f = flags & ~Frames.FLAG_METADATA;
        }
      } else {
        f = Frames.FLAG_NEXT | (last ? finalFlags : Frames.FLAG_FOLLOWS);
      }
      if (withMetadata) {
        f |= Frames.FLAG_METADATA;
      }
      int size = Frames.requestHeaderSize(frameType) + (withMetadata ? 3 + mdTake : 0) + dTake;
      ByteBuf out = beginFrame(size);
      Frames.writeRequestHeader(out, streamId, frameType, f, initialN);
      if (withMetadata) {
        Frames.writeU24(out, mdTake);
        out.writeBytes(md, mdTake);
      }
      out.writeBytes(d, dTake);
      endFrame(out);
      if (last) {
        return;
      }
      first = false;
    }
  }

  /**
   * Queues REQUEST_N(n). {@code urgent}: the peer has used at least half of the credit it will
   * hold after this grant, so it may run dry before the end of the read batch we are in (a batch
   * can hold every message the peer was allowed). Then the frame goes out as soon as the current
   * inbound frame is handled, so the peer produces while we consume the rest of the batch, instead
   * of both sides taking turns; at most once per read batch, so a flood of grants costs at most one
   * extra flush per batch.
   */
  void sendRequestN(int streamId, int n, boolean urgent) {
    if (state == CLOSED) {
      return;
    }
    ByteBuf out = beginFrame(Frames.HEADER_SIZE + 4);
    Frames.writeRequestN(out, streamId, n);
    endFrame(out);
    if (urgent && inReadBatch && !earlyFlushDone) {
      flushAfterFrame = true;
    }
  }

  void sendCancel(int streamId) {
    if (state == CLOSED) {
      return;
    }
    noteUnpaid(Frames.HEADER_SIZE);
    ByteBuf out = beginFrame(Frames.HEADER_SIZE);
    Frames.writeCancel(out, streamId);
    endFrame(out);
  }

  void sendError(int streamId, int code, String message) {
    if (state == CLOSED) {
      return;
    }
    int size = Frames.errorSize(message);
    noteUnpaid(size);
    ByteBuf out = beginFrame(size);
    Frames.writeError(out, streamId, code, message);
    endFrame(out);
  }

  /** Returns a buffer with room for one frame of {@code size} bytes (prefix already written). */
  private ByteBuf beginFrame(int size) {
    if (!prefixed) {
      return alloc.ioBuffer(size);
    }
    return beginFrameHead(size, size);
  }

  /**
   * Writes the u24 length of a frame of {@code size} bytes into the batch, making sure {@code
   * room} bytes of it fit behind the prefix.
   */
  private ByteBuf beginFrameHead(int size, int room) {
    ByteBuf b = batch;
    while (b == null || b.writableBytes() < room + 3) {
      if (b == null) {
        b = batch = alloc.ioBuffer(Math.max(BATCH_SIZE, room + 3));
        batchFrames = 0;
        break;
      }
      // A full batch goes to the socket now, so the kernel sends while we encode the next one.
      // Detach it first: the flush can report writability at once (netty fires it from inside
      // flush), and frames that handler encodes must go into a new batch, never into this one,
      // which belongs to the transport now (and may already be released).
      batch = null;
      transport.write(b);
      flushingMidFrame = true;
      try {
        transport.flush();
      } finally {
        flushingMidFrame = false;
      }
      b = batch; // null, or a batch a re-entrant writer started during the flush
    }
    Frames.writeU24(b, size);
    batchFrames++;
    return b;
  }

  private void endFrame(ByteBuf out) {
    if (!prefixed) {
      transport.write(out);
    }
    requestFlush();
  }

  private void requestFlush() {
    flushPending = true;
    if (!inReadBatch && !flushTaskScheduled) {
      flushTaskScheduled = true;
      loop.execute(flushTask);
    }
  }

  /** Flushes now unless in a read batch (whose end flushes): see {@link StreamCalls#flushInPlace}. */
  void flushOutsideReadBatch() {
    if (!inReadBatch) {
      flushNow();
    }
  }

  private void flushTaskRun() {
    flushTaskScheduled = false;
    flushNow();
  }

  private void flushNow() {
    if (batch != null) {
      ByteBuf b = batch;
      batch = null;
      if (b.isReadable()) {
        transport.write(b);
      } else {
        b.release();
      }
      flushPending = true;
    }
    if (flushPending) {
      flushPending = false;
      transport.flush();
    }
  }

  @Override
  public String toString() {
    return (client ? "client" : "server")
        + " connection to "
        + transport.remoteAddress()
        + " ("
        + streams.size()
        + " streams)";
  }

  /** Reassembly gave back {@code bytes} (message complete or dropped). */
  void reassemblyReleased(int bytes) {
    reassemblyBytes -= bytes;
  }

  /** Bytes held by fragmented messages still being reassembled, for tests. Call on the loop. */
  long reassemblyBytes() {
    return reassemblyBytes;
  }

  /** Streams waiting for the transport to become writable, for tests. Call on the loop. */
  int blockedStreams() {
    return blocked.size();
  }

  /** Live streams, for tests and metrics. Call on the loop. */
  public int activeStreams() {
    return streams.size();
  }

  /**
   * Test hook: makes {@code id} the next stream id this requester tries, so tests can reach the
   * wrap-around at 2^31-1 without opening a billion streams. It must have this side's parity
   * (odd for a client, even for a server). Call on the loop.
   */
  void nextStreamIdForTest(int id) {
    if (id <= 0 || (id & 1) != (client ? 1 : 0)) {
      throw new IllegalArgumentException("not a " + (client ? "client" : "server") + " id: " + id);
    }
    nextStreamId = id;
  }

  /** Convenience for tests: the error that closed the connection, if any. */
  Throwable closeCause() {
    return closeCause;
  }
}
