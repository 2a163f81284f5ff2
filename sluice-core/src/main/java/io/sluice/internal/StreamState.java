package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.InvalidException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.lease.RequestStats;
import io.sluice.lease.RequestStats.Outcome;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The state of one live stream: both halves, request-n accounting in each direction, and the
 * reassembly of a fragmented inbound message. Confined to the connection's event loop; the {@link
 * StreamHandle} methods hop there when called from another thread.
 *
 * <p>Credits are kept as longs: {@link #UNBOUNDED} ({@link Long#MAX_VALUE}) means no limit, which
 * is what a REQUEST_N of 2^31-1 (or credits summing to it) means on the wire.
 */
final class StreamState implements StreamHandle {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(StreamState.class);

  static final long UNBOUNDED = Long.MAX_VALUE;

  // No field for the connection's writer (conn.out): one more reference makes this object 80
  // bytes instead of 72 (JOL, compressed oops), 16 more bytes of garbage per request-response.
  final SluiceConnection conn;
  final int kind; // FrameType.REQUEST_RESPONSE, REQUEST_STREAM or REQUEST_CHANNEL
  final boolean requester;
  int id;
  StreamListener listener;
  /** A failure while a responder's listener was not known yet (see {@link #notifyError}). */
  Throwable errorBeforeListener;

  /** Credit granted to the peer for inbound messages, not yet used. */
  long inboundCredit;

  boolean inboundDone;

  /** Credit the peer granted us for outbound messages, not yet used. */
  long peerCredit;
  /** The part of {@link #peerCredit} already passed to the producer through onRequest. */
  long producerCredit;

  boolean outboundDone;
  boolean terminated;
  /**
   * With {@link RequestStats} on, a responder's stream: when its request arrived and what was
   * reported; null otherwise. A reference, not the fields: it fits in the padding of this object
   * (72 bytes, JOL, compressed oops), which a long would grow to 80 for every stream.
   */
  RequestStatsTap.Timing timing;
  boolean registered;
  /**
   * How the stream is ending, for the metrics (0: completes; see {@link #outcome}): a byte, as it
   * fits beside the flags in this object's padding.
   */
  private byte ending;
  boolean pumping;
  boolean pumpScheduled;

  /**
   * Windows a producer may be granted within one event-loop task. A synchronous producer (one
   * that emits inside onRequest) would otherwise keep the loop busy until the transport is full,
   * delaying reads, other streams and the flush; past this budget the pump yields and continues
   * after the loop's next I/O pass (see {@link #schedulePump}).
   */
  static final int PUMP_ROUNDS_PER_TASK = 4;
  boolean blocked;

  /**
   * Reassembly of a fragmented inbound message; null when none is in progress. A separate object
   * because few streams ever see a fragment, while every stream (one per request-response) would
   * otherwise carry its fields.
   */
  private Fragments frag;

  /** The state of one reassembly. */
  private static final class Fragments {
    CompositeByteBuf metadata;
    CompositeByteBuf data;
    boolean hasMetadata;
    int type;
    int flags;
    int initialN;
    int size;
    int count;
  }

  StreamState(SluiceConnection conn, int kind, boolean requester, StreamListener listener) {
    this.conn = conn;
    this.kind = kind;
    this.requester = requester;
    this.listener = listener;
  }

  // ---- StreamHandle: any thread ---------------------------------------------------------------

  @Override
  public void request(long n) {
    if (conn.commands.inLoopInOrder()) {
      doRequest(n);
    } else {
      conn.commands.enqueue(() -> doRequest(n));
    }
  }

  @Override
  public void cancel() {
    if (conn.commands.inLoopInOrder()) {
      doCancel();
    } else {
      conn.commands.enqueue(this::doCancel);
    }
  }

  @Override
  public void next(Message message) {
    if (conn.commands.inLoopInOrder()) {
      doNext(message, false);
    } else {
      conn.commands.enqueue(() -> doNext(message, false));
    }
  }

  @Override
  public void nextAndComplete(Message message) {
    if (conn.commands.inLoopInOrder()) {
      doNext(message, true);
    } else {
      conn.commands.enqueue(() -> doNext(message, true));
    }
  }

  @Override
  public void complete() {
    if (conn.commands.inLoopInOrder()) {
      doComplete();
    } else {
      conn.commands.enqueue(this::doComplete);
    }
  }

  @Override
  public void error(Throwable cause) {
    if (conn.commands.inLoopInOrder()) {
      doError(cause);
    } else {
      conn.commands.enqueue(() -> doError(cause));
    }
  }

  @Override
  public Executor executor() {
    return conn.loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return conn.alloc;
  }

  // ---- local operations, on the loop ----------------------------------------------------------

  void doRequest(long n) {
    if (terminated || inboundDone || kind == FrameType.REQUEST_RESPONSE) {
      return;
    }
    if (n <= 0) {
      doError(new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9), got " + n));
      return;
    }
    if (inboundCredit == UNBOUNDED) {
      return; // the peer may send without limit: nothing more to grant
    }
    long before = inboundCredit;
    inboundCredit = addCap(inboundCredit, n);
    if (inboundCredit >= Integer.MAX_VALUE) {
      inboundCredit = UNBOUNDED;
      conn.out.sendRequestN(id, Integer.MAX_VALUE, true);
    } else {
      // Urgent when the peer holds no more than this grant adds: it has used at least half of
      // what it may send and could be waiting for this frame.
      conn.out.sendRequestN(id, (int) (inboundCredit - before), before <= inboundCredit - before);
    }
  }

  void doCancel() {
    if (terminated) {
      return;
    }
    if (requester) {
      conn.out.sendCancel(id);
    } else if (!outboundDone) {
      conn.out.sendError(id, io.sluice.ErrorCode.CANCELED, "canceled by the responder");
    } else if (!inboundDone) {
      // A channel responder that completed its half and cancels: only the requester's half is
      // left, and CANCEL is how a responder stops it. Sending nothing would leave the requester
      // waiting for credit, its stream live on both ends until the connection closes.
      conn.out.sendCancel(id);
    }
    ending(CANCELED);
    terminate();
  }

  void doNext(Message message, boolean complete) {
    if (terminated || outboundDone) {
      message.release();
      return;
    }
    if (kind == FrameType.REQUEST_RESPONSE) {
      // Request-response: the responder's single answer completes the stream in one frame.
      if (requester) {
        message.release();
        return;
      }
      outboundDone = true;
      if (timing != null) {
        firstResponse();
      }
      // The answer may come before any demand: it is paid for by nothing but the request.
      conn.writability.noteUnpaid(Frames.HEADER_SIZE + message.size());
      conn.out.sendPayload(id, FrameType.PAYLOAD, SluiceConnection.PAYLOAD_NEXT_COMPLETE, 0, message);
      terminate();
      return;
    }
    if (producerCredit <= 0) {
      message.release();
      failLocally(
          new IllegalStateException(
              "sent a message beyond the demand the peer granted (Reactive Streams §1.1)"));
      return;
    }
    producerCredit--;
    if (peerCredit != UNBOUNDED) {
      peerCredit--;
    }
    if (timing != null) {
      firstResponse();
    }
    if (complete) {
      outboundDone = true;
      conn.out.sendPayload(id, FrameType.PAYLOAD, SluiceConnection.PAYLOAD_NEXT_COMPLETE, 0, message);
      if (inboundDone || kind != FrameType.REQUEST_CHANNEL) {
        terminate();
      }
      return;
    }
    conn.out.sendPayload(id, FrameType.PAYLOAD, SluiceConnection.PAYLOAD_NEXT, 0, message);
    if (producerCredit <= conn.outboundWindow >> 1) {
      pump();
    }
  }

  void doComplete() {
    if (terminated || outboundDone) {
      return;
    }
    if (requester && kind != FrameType.REQUEST_CHANNEL) {
      return; // a request-response or request-stream requester has no outbound half to complete
    }
    outboundDone = true;
    conn.out.sendPayload(id, FrameType.PAYLOAD, SluiceConnection.PAYLOAD_COMPLETE, 0, null);
    if (inboundDone || kind != FrameType.REQUEST_CHANNEL) {
      terminate();
    }
  }

  void doError(Throwable cause) {
    if (terminated) {
      return;
    }
    if (requester && kind != FrameType.REQUEST_CHANNEL) {
      // A request-response or request-stream requester has no outbound half to fail: the spec
      // gives it only CANCEL to end the stream (an ERROR from it is a frame the responder does
      // not expect).
      conn.out.sendCancel(id);
    } else {
      conn.out.sendError(id, Errors.streamCode(cause), Errors.message(cause));
    }
    boolean inboundOpen = !inboundDone;
    ending(ERROR);
    terminate();
    if (inboundOpen && (requester || kind == FrameType.REQUEST_CHANNEL)) {
      notifyError(cause);
    }
  }

  /** A local failure (a misbehaving producer): tell the peer and the listener. */
  void failLocally(Throwable cause) {
    if (terminated) {
      return;
    }
    if (requester) {
      conn.out.sendCancel(id);
    } else {
      conn.out.sendError(id, io.sluice.ErrorCode.APPLICATION_ERROR, Errors.message(cause));
    }
    ending(ERROR);
    terminate();
    notifyError(cause);
  }

  // ---- listener calls: a throwing listener fails its stream, never the connection -----------

  void notifyNext(Message m) {
    try {
      listener.onNext(m);
    } catch (Throwable t) {
      listenerFailed(t);
    }
  }

  void notifyComplete() {
    try {
      listener.onComplete();
    } catch (Throwable t) {
      listenerFailed(t);
    }
  }

  void notifyError(Throwable cause) {
    if (listener == null) {
      // A responder's stream that failed while its responder method ran (the handler's own thread,
      // run at once, let queued work close the connection): startResponder passes it on.
      if (errorBeforeListener == null) {
        errorBeforeListener = cause;
      }
      return;
    }
    try {
      listener.onError(cause);
    } catch (Throwable t) {
      logger.warn("StreamListener.onError threw", t);
    }
  }

  void notifyRequest(long n) {
    try {
      listener.onRequest(n);
    } catch (Throwable t) {
      listenerFailed(t);
    }
  }

  void notifyCancel() {
    if (listener == null) {
      return;
    }
    try {
      listener.onCancel();
    } catch (Throwable t) {
      logger.warn("StreamListener.onCancel threw", t);
    }
  }

  private void listenerFailed(Throwable t) {
    logger.warn("StreamListener threw; failing {}", this, t);
    if (!terminated) {
      failLocally(t);
    }
  }

  static void safeComplete(StreamListener l) {
    try {
      l.onComplete();
    } catch (Throwable t) {
      logger.warn("StreamListener.onComplete threw", t);
    }
  }

  static void safeError(StreamListener l, Throwable cause) {
    try {
      l.onError(cause);
    } catch (Throwable t) {
      logger.warn("StreamListener.onError threw", t);
    }
  }

  // ---- outbound demand: hand the producer min(peer credit, window), only while writable -------

  void onPeerRequest(long n) {
    if (terminated || outboundDone) {
      return;
    }
    if (n >= Integer.MAX_VALUE || peerCredit == UNBOUNDED) {
      peerCredit = UNBOUNDED;
    } else {
      peerCredit = addCap(peerCredit, n);
      if (peerCredit >= Integer.MAX_VALUE) {
        peerCredit = UNBOUNDED; // rsocket-java's convention: sums reaching 2^31-1 mean unbounded
      }
    }
    pump();
  }

  void pump() {
    // No listener yet: the request is still being reassembled from fragments. Credit the peer
    // grants meanwhile is kept in peerCredit and handed over when the responder starts.
    if (pumping || listener == null) {
      return;
    }
    pumping = true;
    try {
      // Loops because a synchronous producer may use its grant inside onRequest; it stops once the
      // producer holds more than half a window, the peer's credit is used up, or the transport
      // is full (then the stream waits in the connection's blocked list for writability).
      int rounds = 0;
      while (!terminated && !outboundDone) {
        long cap = Math.min(peerCredit, conn.outboundWindow);
        long add = cap - producerCredit;
        if (add <= 0 || producerCredit > conn.outboundWindow >> 1) {
          return;
        }
        if (!conn.transport.isWritable()) {
          conn.streams.block(this);
          return;
        }
        if (++rounds > PUMP_ROUNDS_PER_TASK) {
          schedulePump();
          return;
        }
        producerCredit += add;
        notifyRequest(add);
      }
    } finally {
      pumping = false;
    }
  }

  /**
   * Continues the pump as a scheduled task due at once, not as a plain task: a netty event loop
   * runs queued tasks in batches (64 between clock checks, up to a second) before its next I/O
   * pass, and a pump that queued itself again would run a batch of rounds back to back, so a
   * CANCEL, REQUEST_N or keepalive already in the socket waited for tens of thousands of messages
   * (seconds on a loaded machine). Scheduled tasks are taken only at the start of a batch, so this
   * one runs after the next I/O pass. While the loop shuts down gracefully it cancels its scheduled
   * tasks (at every pass) and still runs its queued ones: the continuation is then a plain task,
   * and one cancelled by a shutdown that began after it was scheduled is queued as one.
   */
  private void schedulePump() {
    if (pumpScheduled) {
      return;
    }
    pumpScheduled = true;
    if (conn.loop.isShuttingDown()) {
      conn.loop.execute(this::continuePump);
      return;
    }
    conn.loop
        .schedule(this::continuePump, 0, TimeUnit.NANOSECONDS)
        .addListener(
            f -> {
              if (f.isCancelled() && pumpScheduled && !conn.loop.isShutdown()) {
                conn.loop.execute(this::continuePump);
              }
            });
  }

  private void continuePump() {
    pumpScheduled = false;
    pump();
  }

  // ---- inbound ------------------------------------------------------------------------------

  /** Releases everything this stream holds and removes it from the connection. */
  void terminate() {
    if (terminated) {
      return;
    }
    if (timing != null) {
      endStats(null);
    }
    terminated = true;
    inboundDone = true;
    outboundDone = true;
    releaseFragments();
    conn.streams.unregister(this);
    if (blocked) {
      conn.streams.endedBlocked();
    }
  }

  static final byte ERROR = 1;
  static final byte CANCELED = 2;
  static final byte REJECTED = 3;
  static final byte CONNECTION_CLOSED = 4;

  /** Notes how the stream ends, before {@link #terminate} (the first reason given wins). */
  void ending(byte how) {
    if (ending == 0 && !terminated) {
      ending = how;
    }
  }

  /** How the stream ended, as the metrics name it. */
  io.sluice.core.ConnectionStats.Outcome outcome() {
    if (conn.state == SluiceConnection.CLOSED && ending == 0) {
      return io.sluice.core.ConnectionStats.Outcome.CONNECTION_CLOSED;
    }
    switch (ending) {
      case ERROR:
        return io.sluice.core.ConnectionStats.Outcome.ERROR;
      case CANCELED:
        return io.sluice.core.ConnectionStats.Outcome.CANCELED;
      case REJECTED:
        return io.sluice.core.ConnectionStats.Outcome.REJECTED;
      case CONNECTION_CLOSED:
        return io.sluice.core.ConnectionStats.Outcome.CONNECTION_CLOSED;
      default:
        return io.sluice.core.ConnectionStats.Outcome.COMPLETE;
    }
  }

  // ---- RequestStats (a responder's stream, with stats on) -------------------------------------

  /** The request reaches the responder now: onStart, and onEnd owed. */
  void startStats(RequestStats stats) {
    timing.started = true;
    RequestStatsTap.start(stats, kind);
  }

  private void firstResponse() {
    RequestStatsTap.Timing t = timing;
    if (!t.started || t.responded) {
      return;
    }
    t.responded = true;
    RequestStats stats = conn.in.stats;
    if (stats != null) {
      RequestStatsTap.firstResponse(stats, kind, conn.ticker.nanoTime() - t.arrivalNanos);
    }
  }

  /**
   * Reports the end of a started request once ({@code outcome} null: as the stream's state says,
   * from {@link #terminate}, which calls it before it marks both halves done).
   */
  void endStats(Outcome outcome) {
    RequestStatsTap.Timing t = timing;
    if (t == null || !t.started) {
      return;
    }
    timing = null;
    if (outcome == null) {
      if (conn.state == SluiceConnection.CLOSED) {
        outcome = Outcome.CONNECTION_CLOSED;
      } else if (outboundDone && (inboundDone || kind != FrameType.REQUEST_CHANNEL)) {
        outcome = Outcome.COMPLETE;
      } else {
        outcome = Outcome.ERROR;
      }
    }
    RequestStats stats = conn.in.stats;
    if (stats != null) {
      if (!t.responded) {
        RequestStatsTap.unanswered(stats, kind);
      }
      RequestStatsTap.end(stats, kind, conn.ticker.nanoTime() - t.arrivalNanos, outcome);
    }
  }

  void releaseFragments() {
    if (frag != null) {
      Fragments f = frag;
      frag = null;
      conn.in.reassemblyReleased(f.size);
      f.data.release();
      if (f.metadata != null) {
        f.metadata.release();
      }
    }
  }

  boolean reassembling() {
    return frag != null;
  }

  /** Starts reassembly with the first fragment. */
  void startFragments(ByteBufAllocator alloc, int type, int flags, int initialN) {
    Fragments f = new Fragments();
    f.type = type;
    f.flags = flags;
    f.initialN = initialN;
    f.data = alloc.compositeBuffer(Integer.MAX_VALUE);
    frag = f;
  }

  /** The frame type of the first fragment of the reassembly in progress. */
  int fragType() {
    return frag.type;
  }

  /** The flags of the first fragment of the reassembly in progress. */
  int fragFlags() {
    return frag.flags;
  }

  /** The number of fragments of the reassembly in progress so far. */
  int fragCount() {
    return frag == null ? 0 : frag.count;
  }

  /** The initial request N of the first fragment of the reassembly in progress. */
  int fragInitialN() {
    return frag.initialN;
  }

  /** Appends one fragment's parts; returns false if the message grew past the limit. */
  boolean appendFragment(ByteBufAllocator alloc, ByteBuf metadata, ByteBuf data, int max) {
    Fragments f = frag;
    int add = (metadata == null ? 0 : metadata.readableBytes()) + data.readableBytes();
    if ((long) f.size + add > max) {
      return false;
    }
    f.size += add;
    f.count++;
    if (metadata != null) {
      if (f.metadata == null) {
        f.metadata = alloc.compositeBuffer(Integer.MAX_VALUE);
      }
      f.hasMetadata = true;
      if (metadata.isReadable()) {
        f.metadata.addComponent(true, keep(alloc, metadata));
      }
    }
    if (data.isReadable()) {
      f.data.addComponent(true, keep(alloc, data));
    }
    return true;
  }

  /**
   * Keeps a fragment's part: a retained slice when it fills at least half of the read buffer it
   * was cut from, otherwise a copy. A slice pins its whole read buffer, so a peer trickling tiny
   * fragments, one per read, would otherwise pin far more memory than the reassembly budget
   * counts.
   */
  private static ByteBuf keep(ByteBufAllocator alloc, ByteBuf part) {
    int size = part.readableBytes();
    ByteBuf root = part.unwrap();
    int capacity = root != null ? root.capacity() : part.capacity();
    if (size >= capacity >>> 1) {
      return part.retain();
    }
    ByteBuf copy = alloc.buffer(size);
    copy.writeBytes(part, part.readerIndex(), size);
    return copy;
  }

  /** Completes reassembly: the rebuilt message (owned by the caller). */
  Message takeFragments() {
    Fragments f = frag;
    frag = null;
    ByteBuf metadata = f.hasMetadata ? f.metadata : null;
    if (!f.hasMetadata && f.metadata != null) {
      f.metadata.release();
    }
    conn.in.reassemblyReleased(f.size);
    return Message.of(metadata, f.data);
  }

  static long addCap(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  static InvalidException invalid(String message) {
    return new InvalidException(message);
  }

  static ApplicationErrorException application(String message) {
    return new ApplicationErrorException(message);
  }

  @Override
  public String toString() {
    return FrameType.name(kind) + (requester ? " requester" : " responder") + " stream " + id;
  }
}
