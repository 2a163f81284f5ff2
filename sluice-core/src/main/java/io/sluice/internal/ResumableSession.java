package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.ErrorCode;
import io.sluice.core.Resumption;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One resumable RSocket session (SETUP with the R flag): the transport its {@link SluiceConnection}
 * sees, which stays the same while the real transports under it come and go. The engine is not
 * told of a cut: its frames go to the session, which keeps the ones the spec counts in its {@link
 * ResumeStore} until the peer acknowledges them (KEEPALIVE's last received position, or the
 * positions of RESUME / RESUME_OK), forwards them to the current transport, and replays the
 * unacknowledged ones on the next transport.
 *
 * <p><b>Positions.</b> As the spec says: the bytes (without length prefix) of REQUEST_RESPONSE,
 * REQUEST_FNF, REQUEST_STREAM, REQUEST_CHANNEL, REQUEST_N, CANCEL, PAYLOAD and ERROR frames on
 * streams other than 0, per direction. Frames on stream 0 (SETUP, KEEPALIVE, LEASE,
 * METADATA_PUSH, connection ERRORs) are neither counted, stored nor replayed.
 *
 * <p><b>Acknowledgements.</b> Besides the client's KEEPALIVEs, each side sends a KEEPALIVE
 * without the respond flag carrying its received position whenever it has received {@link
 * #ACK_BYTES} since it last said so, so stores stay small on fast streams; such KEEPALIVEs are
 * consumed here and never reach the engine.
 *
 * <p><b>Memory.</b> The store is bounded ({@link Resumption#maxStoreBytes()}): at half of it the
 * session tells the engine it is unwritable (producers wait, as for a full socket); a frame that
 * would take it past the bound ends the session with ERROR[CONNECTION_ERROR] (its streams fail with
 * that message) instead of growing or blocking. The engine always sees {@link
 * Framing#LENGTH_PREFIXED}: the session cuts its batches into frames (the store copies small
 * frames into its own chunks and keeps retained slices of large ones), passes batches through
 * unchanged to a length-prefixed transport, and copies each frame behind the transport's prefix
 * otherwise.
 *
 * <p><b>Threads.</b> Confined to the event loop the session was made on. A transport on another
 * loop reaches it through a {@link LoopBridge}.
 *
 * <p><b>Parts.</b> This class keeps the path of every frame: the engine's writes cut, counted,
 * stored and forwarded, the inbound count and the acknowledgements. Each real transport is a
 * {@link SessionLink}; cuts, RESUME / RESUME_OK and the replay on attach are {@link
 * ResumeHandshake}'s; what is read of a frame's head to count it is in {@link ResumeFrames}
 * (static, called directly).
 */
public final class ResumableSession implements DuplexTransport {
  /** Received bytes after which a side tells the peer its position (a KEEPALIVE, R clear). */
  static final long ACK_BYTES = 32 * 1024;
  /** Frames up to this size are copied into a batch when they cannot be passed through. */
  private static final int COPY_LIMIT = 8 * 1024;
  private static final int BATCH_SIZE = 64 * 1024;
  /**
   * Least time between a KEEPALIVE asking the peer for its position ({@link #askForAck}) and the
   * KEEPALIVE with the respond flag we sent before it, a question or the engine's keepalive: a
   * peer bounds the KEEPALIVEs it gets (16 a second by default) and counts both kinds. A question
   * also stands in for the next keepalive ({@link KeepAlive#askedSinceCheck}), so two KEEPALIVEs
   * with the respond flag are never less than the smaller of this and the keepalive interval
   * apart: at most 8 a second beside a keepalive of 125 ms or more, the keepalive's own rate
   * beside a faster one.
   */
  private static final long ASK_SPACING_NANOS = TimeUnit.MILLISECONDS.toNanos(125);

  /** Who made the session: told of cuts, resumes and the end. Called on the loop. */
  interface Owner {
    /** The current transport is gone (an attempt's or an attached one's). */
    default void detached(Throwable cause, boolean wasAttached) {}

    default void resumed(int count) {}

    /** The session ended before it could be resumed. */
    default void resumeFailed(Throwable cause) {}

    /** The session has ended and released everything. */
    default void closed() {}
  }

  final EventExecutor loop;
  final ByteBufAllocator alloc;
  final byte[] token;
  final ResumeStore store;
  final Owner owner;
  SluiceConnection conn;
  FrameReceiver core;

  /** The newest transport: attached, resuming (client) or dead. */
  SessionLink link;
  boolean attached;
  /** Bytes of counted frames received (the implied position of what came in). */
  long received;
  /** The received position the peer was last told. */
  long ackedToPeer;

  /** A frame whose head came in an earlier write (a large payload follows as its own writes). */
  private CompositeByteBuf partial;
  private int partialRemaining;
  /** The store refused a frame: the session is ending. */
  boolean storeBroken;
  boolean storeFull;
  /** A KEEPALIVE asking for the peer's position went out, and no position came since. */
  boolean ackAsked;
  private boolean askScheduled;
  private long lastAskNanos;
  private boolean coreWritable = true;
  boolean readEnabled = true;
  boolean needsFlush;
  boolean closing;
  boolean closed;
  ByteBuf outBatch;
  private long detachedProgress;
  /** The cuts and resumes: a lost link, RESUME, RESUME_OK, the attach. */
  final ResumeHandshake handshake;
  /** Batches stored whole on the writer's word ({@link #writeCounted}): for tests. */
  long countedBatches;

  private ResumableSession(
      DuplexTransport first, Resumption config, byte[] token, ResumeBudget budget, Owner owner) {
    this.loop = first.executor();
    this.alloc = first.alloc();
    this.token = token;
    this.store = new ResumeStore(alloc, config.maxStoreBytes(), budget);
    this.owner = owner;
    this.link = new SessionLink(this, first);
    this.attached = true;
    this.handshake = new ResumeHandshake(this, config.sessionTimeout().toNanos());
  }

  /** A client's session over its first transport (on that transport's loop). */
  static ResumableSession client(
      DuplexTransport first, Resumption config, byte[] token, Owner owner) {
    return new ResumableSession(first, config, token, null, owner);
  }

  /** A server's session over the transport its SETUP came on (on that transport's loop). */
  static ResumableSession server(
      DuplexTransport first, Resumption config, byte[] token, ResumeBudget budget, Owner owner) {
    return new ResumableSession(first, config, token, budget, owner);
  }

  // ===========================================================================================
  // DuplexTransport: what the engine sees
  // ===========================================================================================

  @Override
  public Framing framing() {
    return Framing.LENGTH_PREFIXED;
  }

  @Override
  public EventExecutor executor() {
    return loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return alloc;
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.core = receiver;
    this.conn = (SluiceConnection) receiver;
    link.phys.start(link);
  }

  @Override
  public void write(ByteBuf buf) {
    try {
      if (!closed) {
        cut(buf);
      }
    } finally {
      buf.release();
    }
  }

  /**
   * As {@link #write}, for a batch the engine's {@link FrameWriter} knows to hold {@code frames}
   * whole frames, each one the spec counts (a stream other than 0, a counted type) and of at most
   * {@link ResumeStore#COPY_LIMIT} bytes: stored with one copy and forwarded without reading each
   * frame's head.
   */
  void writeCounted(ByteBuf buf, int frames) {
    try {
      if (!closed) {
        assert ResumeFrames.countedBatch(buf, frames) : "FrameWriter's summary of a batch is wrong";
        if (partial != null || storeBroken || !storeCounted(buf, frames)) {
          cut(buf);
        }
      }
    } finally {
      buf.release();
    }
  }

  /**
   * Stores and forwards a batch of counted frames ({@link #writeCounted}); false, having done
   * nothing, when the store refuses the run ({@link #cut} then stores what fits and ends the
   * session on the first frame that does not).
   */
  private boolean storeCounted(ByteBuf buf, int frames) {
    int r = buf.readerIndex();
    int w = buf.writerIndex();
    if (!store.addRun(buf, r, w, frames, (long) (w - r) - 3L * frames)) {
      return false;
    }
    countedBatches++;
    if (attached) {
      SessionLink l = link;
      if (l.framing == Framing.LENGTH_PREFIXED) {
        flushOutBatch(l);
        l.phys.write(buf.retain()); // the whole batch as it is: not even a slice
      } else {
        for (int len; r < w; r += 3 + len) {
          len = Frames.getU24(buf, r);
          sendFrame(l, buf.retainedSlice(r + 3, len));
        }
      }
    }
    updateWritability();
    return true;
  }

  @Override
  public void flush() {
    if (attached) {
      flushOutBatch(link);
      link.phys.flush();
      needsFlush = false;
    }
  }

  @Override
  public boolean isWritable() {
    return coreWritable;
  }

  @Override
  public long outboundProgress() {
    // While no transport is attached the session's timeout governs, not the write-stall timeout:
    // report progress so that a cut is not taken for a peer that reads nothing.
    return attached ? link.phys.outboundProgress() : ++detachedProgress;
  }

  @Override
  public long unsentBytes() {
    return attached ? link.phys.unsentBytes() : -1;
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    readEnabled = enabled;
    if (attached) {
      link.phys.setReadEnabled(enabled);
    }
  }

  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    SessionLink l = link;
    if (l != null && !l.dead) {
      if (attached) {
        flushOutBatch(l);
        l.phys.flush();
      }
      l.phys.close(); // finish() follows from its onClosed
    } else {
      finish();
    }
  }

  @Override
  public SocketAddress remoteAddress() {
    return link != null ? link.phys.remoteAddress() : null;
  }

  /** The kind of transport the session runs over now (the first one's until it has one). */
  @Override
  public String name() {
    SessionLink l = link;
    return l != null ? l.phys.name() : "other";
  }

  // ===========================================================================================
  // Outbound: cut the engine's writes into frames, count, store, forward
  // ===========================================================================================

  void cut(ByteBuf buf) {
    SessionLink l = attached ? link : null;
    boolean passThrough = l != null && l.framing == Framing.LENGTH_PREFIXED;
    int r = buf.readerIndex();
    int w = buf.writerIndex();
    int runStart = -1;
    // A run of small counted frames, stored with one copy (the store keeps them length-prefixed,
    // as they are here).
    int storeFrom = -1;
    int storeFrames = 0;
    long storeBytes = 0;
    while (r < w) {
      if (partial != null) {
        int take = Math.min(partialRemaining, w - r);
        partial.addComponent(true, buf.retainedSlice(r, take));
        r += take;
        partialRemaining -= take;
        if (partialRemaining == 0) {
          ByteBuf f = partial;
          partial = null;
          noteSent(f, f.readerIndex(), f.readableBytes());
          if (l != null) {
            sendFrame(l, f);
          } else {
            f.release();
          }
        }
        continue;
      }
      if (w - r < 3) {
        // The engine writes a frame's length, header and metadata length in one buffer.
        storeRun(buf, storeFrom, r, storeFrames, storeBytes);
        storeBroken = true;
        failLater("a write split a frame's length prefix");
        return;
      }
      int len = Frames.getU24(buf, r);
      if (w - r - 3 < len) { // the head of a large frame; the rest follows as its own writes
        storeRun(buf, storeFrom, r, storeFrames, storeBytes);
        storeFrom = -1;
        if (runStart >= 0) {
          passThrough(l, buf, runStart, r);
          runStart = -1;
        }
        partial = alloc.compositeBuffer(Integer.MAX_VALUE);
        partial.addComponent(true, buf.retainedSlice(r + 3, w - r - 3));
        partialRemaining = len - (w - r - 3);
        break;
      }
      if (len >= Frames.HEADER_SIZE
          && len <= ResumeStore.COPY_LIMIT
          && w - r >= 8
          && !storeBroken
          && ResumeFrames.countedHead(buf.getLong(r))) {
        if (storeFrom < 0) {
          storeFrom = r;
          storeFrames = 0;
          storeBytes = 0;
        }
        storeFrames++;
        storeBytes += len;
      } else {
        storeRun(buf, storeFrom, r, storeFrames, storeBytes);
        storeFrom = -1;
        noteSent(buf, r + 3, len);
      }
      if (passThrough) {
        if (runStart < 0) {
          runStart = r;
        }
      } else if (l != null) {
        sendFrame(l, buf.retainedSlice(r + 3, len));
      }
      r += 3 + len;
    }
    storeRun(buf, storeFrom, r, storeFrames, storeBytes);
    if (runStart >= 0) {
      passThrough(l, buf, runStart, r);
    }
    updateWritability();
  }

  /**
   * Stores the run of length-prefixed counted frames at {@code [from, to)} of {@code buf}
   * ({@code from < 0}: none). Past the store's bound the frames are tried one by one, so that the
   * store keeps what fits and the session ends on the first frame that does not.
   */
  private void storeRun(ByteBuf buf, int from, int to, int frames, long frameBytes) {
    if (from < 0 || storeBroken || store.addRun(buf, from, to, frames, frameBytes)) {
      return;
    }
    for (int r = from; r < to && !storeBroken; ) {
      int len = Frames.getU24(buf, r);
      noteSent(buf, r + 3, len);
      r += 3 + len;
    }
  }

  /** Counts and stores a sent frame (a view, not owned); stamps our position into a KEEPALIVE. */
  void noteSent(ByteBuf b, int off, int len) {
    if (len < Frames.HEADER_SIZE) {
      return;
    }
    int typeAndFlags = b.getUnsignedShort(off + 4);
    int type = typeAndFlags >>> 10;
    if ((b.getInt(off) & Frames.MAX_STREAM_ID) != 0) {
      if (counted(type) && !storeBroken && !store.add(b, off, len)) {
        storeBroken = true;
        failLater(
            store.refusedByBudget()
                ? "the server's resume memory for all sessions is used up (Resumption"
                    + ".maxTotalStoreBytes, "
                    + store.budgetMax()
                    + " bytes): this session's store holds "
                    + store.bytes()
                    + " bytes sent and not acknowledged by the peer and cannot grow; the session"
                    + " is ended"
                : "the session's resume store is full: "
                    + store.bytes()
                    + " bytes sent and not acknowledged by the peer, "
                    + store.maxBytes()
                    + " allowed (Resumption.maxStoreBytes); the session is ended");
      }
    } else if (type == FrameType.KEEPALIVE && len >= Frames.HEADER_SIZE + 8) {
      b.setLong(off + Frames.HEADER_SIZE, received & Long.MAX_VALUE);
      if (attached) {
        ackedToPeer = received;
      }
      if ((typeAndFlags & Frames.FLAG_KEEPALIVE_RESPOND) != 0) {
        // The engine's keepalive: its answer carries the peer's position as a question's does,
        // and the peer counts it as one; the next question keeps its distance from it.
        long now = loop.ticker().nanoTime();
        lastAskNanos = now == 0 ? 1 : now;
      }
    }
  }

  /** The frame types whose bytes the spec counts in positions (on streams other than 0). */
  static boolean counted(int type) {
    return type >= FrameType.REQUEST_RESPONSE && type <= FrameType.ERROR;
  }

  private void passThrough(SessionLink l, ByteBuf buf, int from, int to) {
    flushOutBatch(l);
    l.phys.write(buf.retainedSlice(from, to - from));
  }

  /** Writes one whole frame (owned, no prefix) to {@code l} in its framing; not flushed. */
  void sendFrame(SessionLink l, ByteBuf frame) {
    if (l.framing == Framing.FRAME_PER_WRITE) {
      flushOutBatch(l);
      l.phys.write(frame);
      return;
    }
    int n = frame.readableBytes();
    if (l.framing == Framing.LENGTH_PREFIXED && n > COPY_LIMIT) {
      flushOutBatch(l);
      ByteBuf head = alloc.buffer(3);
      Frames.writeU24(head, n);
      l.phys.write(alloc.compositeBuffer(2).addComponents(true, head, frame));
      return;
    }
    int pre = l.framing == Framing.LENGTH_PREFIXED ? 3 : l.prefix.maxLength();
    try {
      if (outBatch != null && outBatch.writableBytes() < pre + n) {
        flushOutBatch(l);
      }
      if (outBatch == null) {
        outBatch = alloc.buffer(Math.max(BATCH_SIZE, pre + n));
      }
      if (l.framing == Framing.LENGTH_PREFIXED) {
        Frames.writeU24(outBatch, n);
      } else {
        l.prefix.write(outBatch, n);
      }
      outBatch.writeBytes(frame, frame.readerIndex(), n);
    } finally {
      frame.release();
    }
  }

  void flushOutBatch(SessionLink l) {
    ByteBuf b = outBatch;
    if (b != null) {
      outBatch = null;
      if (b.isReadable()) {
        l.phys.write(b);
      } else {
        b.release();
      }
    }
  }

  void updateWritability() {
    long b = store.bytes();
    long reachable = store.reachableBytes(); // less than the bound while the server's budget is short
    if (!storeFull && b >= reachable / 2) {
      storeFull = true;
      askForAck();
    } else if (storeFull && b < reachable * 3 / 8) {
      // Well above the peer's acknowledgement step: once all in flight has landed the peer has
      // acknowledged all but less than ACK_BYTES, so the store always gets back below this.
      storeFull = false;
    }
    boolean w = !storeFull && (!attached || link.phys.isWritable());
    if (w != coreWritable && core != null && !closed) {
      coreWritable = w;
      core.onWritabilityChanged(w);
    }
  }

  // ===========================================================================================
  // Inbound
  // ===========================================================================================

  void inbound(ByteBuf frame) {
    int n = frame.readableBytes();
    if (n >= Frames.HEADER_SIZE) {
      int type;
      int streamId;
      if (n >= 8) { // one read for the stream id and the type (most frames)
        long head = frame.getLong(frame.readerIndex());
        streamId = ResumeFrames.streamIdOf(head);
        type = ResumeFrames.typeOf(head);
      } else {
        streamId = Frames.streamId(frame);
        type = Frames.type(frame);
      }
      if (streamId != 0) {
        if (counted(type)) {
          received += n;
        }
      } else if (type == FrameType.KEEPALIVE && n >= Frames.HEADER_SIZE + 8) {
        long pos = Frames.keepAliveLastPosition(frame);
        if (pos > store.endPosition()) {
          conn.connectionError(
              ErrorCode.CONNECTION_ERROR,
              "KEEPALIVE acknowledges position " + pos + " but " + store.endPosition()
                  + " bytes were sent",
              null);
          return;
        }
        store.trimTo(pos);
        ackAsked = false;
        updateWritability();
        if (storeFull) {
          askForAck(); // what was in flight when the peer answered has landed since, or will
        }
        if (!Frames.hasFlag(frame, Frames.FLAG_KEEPALIVE_RESPOND)) {
          conn.keepAlive.heard = true; // an acknowledgement: the engine needs no more of it
          return;
        }
      }
    }
    core.onFrame(frame);
  }

  /**
   * The store is half full (of what it can reach): asks the peer for its position with a
   * KEEPALIVE whose respond flag is set (carrying ours), so that frames are freed before the store
   * refuses one. The peer's own acknowledgement step ({@link #ACK_BYTES}) is not enough: under the
   * server's budget the store may reach little more than 64 KiB and lets its producers go again
   * only below 3/8 of that (24 KiB), under the step, so a peer that has nothing more to acknowledge
   * of its own would never be asked, and a peer of another implementation may have no such step.
   * One question at a time, at most one per {@link #ASK_SPACING_NANOS} (a later one is
   * scheduled).
   */
  void askForAck() {
    if (ackAsked || askScheduled || !attached || closed || closing) {
      return;
    }
    long now = loop.ticker().nanoTime();
    long wait = lastAskNanos == 0 ? 0 : lastAskNanos + ASK_SPACING_NANOS - now;
    if (wait > 0) {
      askScheduled = true;
      loop.schedule(
          () -> {
            askScheduled = false;
            if (storeFull && attached && !closed) {
              askForAck();
              flush();
            }
          },
          wait,
          TimeUnit.NANOSECONDS);
      return;
    }
    ackAsked = true;
    lastAskNanos = now == 0 ? 1 : now;
    if (conn != null) {
      conn.keepAlive.askedSinceCheck = true; // the question is this period's keepalive
    }
    sendPosition(true);
  }

  void maybeAck() {
    if (attached && received - ackedToPeer >= ACK_BYTES) {
      sendPosition(false);
    }
  }

  /**
   * Sends a KEEPALIVE carrying our position ({@code respond}: asking for the peer's), out of the
   * batch at once: sent from the inbound path of a length-prefixed link, it would otherwise wait
   * in the batch while a blocked core has nothing to flush.
   */
  private void sendPosition(boolean respond) {
    ByteBuf f = alloc.buffer(Frames.HEADER_SIZE + 8);
    Frames.writeKeepAlive(f, respond, received, null);
    ackedToPeer = received;
    sendFrame(link, f);
    flushOutBatch(link);
    needsFlush = true;
  }

  void failLater(String message) {
    loop.execute(
        () -> {
          if (!closing) {
            conn.connectionError(ErrorCode.CONNECTION_ERROR, message, null);
          }
        });
  }

  /** Ended: releases the store and what is held for the transport; the engine hears of the close. */
  void finish() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    attached = false;
    handshake.stopDetachedTimer();
    store.release();
    if (partial != null) {
      partial.release();
      partial = null;
    }
    if (outBatch != null) {
      outBatch.release();
      outBatch = null;
    }
    try {
      owner.closed();
    } finally {
      if (core != null) {
        core.onClosed();
      }
    }
  }

  /**
   * The most bytes the store of {@code requester}'s session ever held, or -1 if it is not a
   * resumable client connection. For tests and metrics (a racy read from another thread).
   */
  public static long storeHighWater(io.sluice.Requester requester) {
    if (requester instanceof SluiceConnection
        && ((SluiceConnection) requester).transport instanceof ResumableSession) {
      return ((ResumableSession) ((SluiceConnection) requester).transport).store.highWater();
    }
    return -1;
  }

  /**
   * Test hook: closes the transport currently under {@code requester}'s session (on its loop), as
   * a cut would, for transports a test cannot cut from outside. False if not resumable.
   */
  public static boolean cutForTest(io.sluice.Requester requester) {
    if (!(requester instanceof SluiceConnection
        && ((SluiceConnection) requester).transport instanceof ResumableSession)) {
      return false;
    }
    ResumableSession s = (ResumableSession) ((SluiceConnection) requester).transport;
    s.loop.execute(
        () -> {
          if (s.link != null && !s.link.dead) {
            s.link.phys.close();
          }
        });
    return true;
  }

  /** Times {@code requester}'s session resumed, or -1 if it is not resumable. Racy read. */
  public static int resumes(io.sluice.Requester requester) {
    if (requester instanceof SluiceConnection
        && ((SluiceConnection) requester).transport instanceof ResumableSession) {
      return ((ResumableSession) ((SluiceConnection) requester).transport).handshake.resumes;
    }
    return -1;
  }

  /** Server: a RESUME for this session came on {@code phys}; see {@link ResumeHandshake#resume}. */
  String resume(DuplexTransport phys, long lastReceivedServerPos, long firstAvailableClientPos) {
    return handshake.resume(phys, lastReceivedServerPos, firstAvailableClientPos);
  }

  /** Client: sends RESUME on a new transport; see {@link ResumeHandshake#beginResume}. */
  void beginResume(DuplexTransport phys) {
    handshake.beginResume(phys);
  }

  boolean isEnded() {
    return closing;
  }

  boolean isAttached() {
    return attached;
  }

  long receivedPosition() {
    return received;
  }

  int resumes() {
    return handshake.resumes;
  }

}
