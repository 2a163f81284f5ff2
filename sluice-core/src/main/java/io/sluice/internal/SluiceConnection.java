package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.Ticker;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Acceptor;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The RSocket protocol engine for one connection, both requester and responder (RSocket is
 * symmetric). This class holds the connection's lifecycle (start, SETUP, graceful close, close)
 * and the requester API, and wires the parts that do the rest, one job each: {@code
 * InboundFrames}, {@code SetupHandshake}, {@code StreamTable} with {@code StreamState}, {@code
 * FrameWriter}, {@code Writability}, {@code CommandQueue}, {@code KeepAlive}, {@code Lease} and
 * {@code GracefulClose}. The package documentation draws them, with the path of one inbound and
 * one outbound message.
 *
 * <p><b>Threads.</b> All state lives on the transport's event loop and is touched only there: no
 * locks, no atomics on the per-message path. Calls from other threads are queued once in an MPSC
 * queue and drained on the loop in order, batched (the shape of grpc-java's WriteQueue).
 *
 * <p><b>Memory.</b> Every table and buffer is bounded by {@link ConnectionOptions}: frame size,
 * reassembled size, live streams, and queued outbound bytes (producers are asked for more only
 * while the transport is writable; reading stops while it is not only once the peer has made us
 * queue output that flow control does not bound, see {@code Writability#noteUnpaid}).
 */
public final class SluiceConnection implements Requester, FrameReceiver {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(SluiceConnection.class);

  static final int PAYLOAD_NEXT = Frames.FLAG_NEXT;
  static final int PAYLOAD_COMPLETE = Frames.FLAG_COMPLETE;
  static final int PAYLOAD_NEXT_COMPLETE = Frames.FLAG_NEXT | Frames.FLAG_COMPLETE;

  static final int AWAITING_SETUP = 0;
  static final int ESTABLISHED = 1;
  static final int DRAINING = 2;
  static final int CLOSED = 3;

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
  final ConnectionOptions options;
  final boolean client;
  Responder responder;

  /** AWAITING_SETUP, ESTABLISHED, DRAINING or CLOSED; written through {@code #setState}. */
  int state;
  /**
   * {@link #isOpen()} for other threads: the state is written on the loop only, and a plain read
   * from another thread may be stale for ever. Written with every state change.
   */
  private volatile boolean open = true;

  // The parts (see the class comment).
  final StreamTable streams;
  final FrameWriter out;
  final Writability writability;
  final CommandQueue commands;
  final KeepAlive keepAlive;
  final Lease lease;
  final SetupHandshake handshake;
  final InboundFrames in;
  final GracefulClose graceful;

  private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
  /** Completes when requests may be sent: at once, or at the first LEASE when leasing. */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private Throwable closeCause;
  /** {@code #onClosed} ran (the transport reported the close, or a stand-in did it for it). */
  private boolean closeReported;
  /** A client's {@code transport.start} is running: a close it reports came before the start. */
  private boolean starting;

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
    this.outboundWindow = options.outboundWindow();
    this.responder = responder;
    this.streams = new StreamTable(this);
    this.out = new FrameWriter(this);
    this.writability = new Writability(this);
    this.commands = new CommandQueue(this);
    this.keepAlive = new KeepAlive(this);
    this.lease = new Lease(this);
    this.handshake = new SetupHandshake(this, acceptor);
    this.in = new InboundFrames(this);
    this.graceful = new GracefulClose(this);
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
    SluiceConnection c;
    try {
      c = new SluiceConnection(transport, options, true, null, null);
    } catch (RuntimeException e) { // a transport that breaks the SPI (see FrameWriter)
      if (setup.payload() != null) {
        setup.payload().release();
      }
      throw e;
    }
    c.commands.deferring = true; // requests the factory makes must follow SETUP
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
      c.commands.deferring = false;
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
    starting = true;
    try {
      transport.start(this);
    } finally {
      starting = false;
    }
    if (closeReported) {
      // The transport was closed before it started and said so from start(): no SETUP, no timers.
      if (setup.payload() != null) {
        setup.payload().release();
      }
      return;
    }
    handshake.writeClientSetup(setup);
    keepAlive.start(
        options.keepAliveInterval().toMillis(), options.keepAliveMaxLifetime().toNanos(), true);
    if (options.lease()) {
      lease.startGrants();
    } else {
      ready.complete(null);
    }
    out.flushNow();
  }

  private void startServer() {
    setState(AWAITING_SETUP);
    transport.start(this);
    handshake.startTimeout();
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  void setState(int newState) {
    state = newState;
    out.closed = newState == CLOSED;
    open = newState == ESTABLISHED || newState == AWAITING_SETUP;
  }

  @Override
  public void close() {
    commands.enqueueOrRun(() -> graceful.start(options.drainTimeout(), false));
  }

  /**
   * A server's drain ({@code SluiceServer.stop}): as {@link #close()}, but a connection that
   * grants leases first sends a LEASE of 0 requests, and {@code grace} is the drain deadline.
   */
  public void drain(Duration grace) {
    commands.enqueueOrRun(() -> graceful.start(grace, true));
  }

  @Override
  public void dispose() {
    commands.enqueueOrRun(() -> closeNow(new ConnectionErrorException("connection disposed")));
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

  /** Sends ERROR on stream 0 and closes at once. */
  void connectionError(int code, String message, Throwable cause) {
    if (state == CLOSED) {
      return;
    }
    out.sendError(0, code, message);
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
  void closeNow(Throwable cause) {
    if (state == CLOSED) {
      return;
    }
    setState(CLOSED);
    closeCause = cause;
    cancelTimers();
    out.flushNow();
    // Streams first: a transport may report the close at once (the local one does), completing
    // onClose(), which must not come before the streams' last signals.
    streams.failAll(cause != null ? cause : new ConnectionCloseException("connection closed"));
    transport.close();
  }

  private void cancelTimers() {
    keepAlive.cancel();
    handshake.cancelTimeout();
    graceful.cancel();
    lease.cancel();
    writability.cancelTimer();
  }

  static void cancel(ScheduledFuture<?> f) {
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
      ConnectionErrorException lost = new ConnectionErrorException("connection closed by the peer");
      if (starting) {
        closeCause =
            new ConnectionErrorException("the transport closed before the connection started");
      } else if (state != DRAINING) {
        // Gone without CONNECTION_CLOSE either way (crash, reset, connection cap): a failure.
        closeCause = lost;
      }
      setState(CLOSED);
      cancelTimers();
      streams.failAll(lost);
    }
    out.releaseBatch();
    commands.runAll();
    streams.clearBlocked();
    in.connectionClosed();
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

  /**
   * The event loop has terminated under the connection (see {@code CommandQueue}): the calling
   * thread, standing in for it, closes the connection, failing every stream, and reports the close
   * the transport can no longer report. The transport is not touched: its channel was on the loop
   * that is gone.
   */
  void closeForGoneLoop() {
    if (state != CLOSED) {
      setState(CLOSED);
      closeCause = new ConnectionErrorException("the connection's event loop has shut down");
      try {
        cancelTimers(); // the loop canceled them as it shut down; this is only a safeguard
      } catch (RejectedExecutionException e) {
        // a timer's cancel handed to the dead loop: nothing left to cancel there
      }
      streams.failAll(closeCause);
    }
    onClosed();
  }

  @Override
  public double availability() {
    return lease.availability(Integer.MIN_VALUE);
  }

  @Override
  public double availability(int rank) {
    return lease.availability(rank);
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
    commands.enqueueOrRun(
        () -> {
          Throwable refused = refuseRequest(false);
          if (refused != null) {
            request.release();
            StreamState.safeError(listener, refused);
            return;
          }
          int id = streams.allocateId();
          out.sendPayload(id, FrameType.REQUEST_FNF, 0, 0, request);
          StreamState.safeComplete(listener);
        });
  }

  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    commands.enqueueOrRun(
        () -> {
          if (state != ESTABLISHED) {
            metadata.release();
            StreamState.safeError(listener, closedException());
            return;
          }
          ByteBuf md = metadata.metadata();
          int frameSize = Frames.HEADER_SIZE + md.readableBytes();
          int largest = Math.min(Frames.MAX_FRAME_SIZE, options.maxFrameSize());
          if (frameSize > largest) {
            // METADATA_PUSH cannot be fragmented: past the u24 length it would put the byte stream
            // out of sync, past the peer's largest frame it gets the connection closed.
            metadata.release();
            StreamState.safeError(
                listener,
                out.refusedPush(
                    "METADATA_PUSH frame of "
                        + frameSize
                        + " bytes is larger than the largest frame ("
                        + largest
                        + " bytes, ConnectionOptions.maxFrameSize); it cannot be fragmented"));
            return;
          }
          try {
            ByteBuf frame = out.beginFrame(FrameType.METADATA_PUSH, frameSize);
            Frames.writeMetadataPush(frame, md);
            out.endFrame(frame);
          } finally {
            metadata.release();
          }
          StreamState.safeComplete(listener);
        });
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_RESPONSE, true, listener);
    commands.enqueueOrRun(() -> startRequest(s, request, 1, false));
    return s;
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_STREAM, true, listener);
    commands.enqueueOrRun(() -> startRequest(s, request, initialRequest, false));
    return s;
  }

  @Override
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
    StreamState s = new StreamState(this, FrameType.REQUEST_CHANNEL, true, listener);
    commands.enqueueOrRun(() -> startRequest(s, first, initialRequest, complete));
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
      s.notifyError(
          new IllegalArgumentException("initial request must be positive: " + initialRequest));
      return;
    }
    Throwable refused = refuseRequest(true);
    if (refused != null) {
      request.release();
      s.terminated = true;
      s.notifyError(refused);
      return;
    }
    s.id = streams.allocateId();
    streams.register(s);
    int n;
    if (initialRequest >= Integer.MAX_VALUE) {
      s.inboundCredit = StreamState.UNBOUNDED;
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
    out.sendPayload(s.id, s.kind, flags, n, request);
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
      return ConnectionCloseException.notSent("connection is closing; no new requests");
    }
    if (state != ESTABLISHED) {
      return closedException();
    }
    if (stream && streams.activeRequester >= options.maxActiveStreams()) {
      return io.sluice.exceptions.RejectedException.notSent(
          "too many live requests on this connection (" + options.maxActiveStreams() + ")");
    }
    return lease.takePermit();
  }

  private Throwable closedException() { // never sent: the connection is closed
    return ConnectionErrorException.notSent(
        closeCause != null ? "connection closed: " + Errors.message(closeCause) : "connection closed");
  }

  // ===========================================================================================
  // FrameReceiver: what the transport reports
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
  public void onFrame(ByteBuf frame) {
    in.onFrame(frame);
  }

  @Override
  public void onReadComplete() {
    commands.runOwedDrain();
    out.readBatchEnded();
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    writability.onWritabilityChanged(writable);
  }

  @Override
  public void onTransportError(Throwable cause) {
    in.onTransportError(cause);
  }

  @Override
  public String toString() {
    String side = client ? "client" : "server";
    return side + " connection to " + transport.remoteAddress() + " (" + streams.size() + " streams)";
  }

  /** Bytes held by fragmented messages still being reassembled, for tests. Call on the loop. */
  long reassemblyBytes() {
    return in.reassemblyBytes();
  }

  /** Streams waiting for the transport to become writable, for tests. Call on the loop. */
  int blockedStreams() {
    return streams.blockedCount();
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
    streams.nextIdForTest(id);
  }

  /** Convenience for tests: the error that closed the connection, if any. */
  Throwable closeCause() {
    return closeCause;
  }
}
