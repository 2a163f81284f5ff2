package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.core.ConnectionStats;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.lease.LeaseGrants;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;

/**
 * The outbound half of a connection: encodes frames and decides when they are flushed.
 *
 * <p>Frames are encoded without flushing; one flush per inbound read batch or loop turn, plus one
 * part-way through a read batch once {@link #EARLY_FLUSH_FRAMES} wait (or a REQUEST_N the peer may
 * be waiting for) while the peer keeps up. On byte-stream transports small frames are encoded back
 * to back, each behind its u24 length (or the transport's {@link FramePrefix}), into one pooled
 * buffer per batch that goes to the transport as a single write; large payloads go as their own
 * buffers without copying, and payloads above the MTU are fragmented (no other frame of the stream
 * between the fragments: see {@link #flushingMidFrame}). On transports that take one frame per
 * write, each frame gets a buffer of its own.
 *
 * <p>Confined to the connection's event loop. Every method that takes a {@link Message} takes
 * ownership of it and releases it, whether the frame is written or the connection is closed.
 */
final class FrameWriter {
  /** Payloads up to this size are copied into the batch buffer; larger ones are written as is. */
  private static final int COPY_THRESHOLD = 2048;

  private static final int BATCH_SIZE = 64 * 1024;

  /** Longest transport prefix accepted: far more than any framing needs (WebSocket: 14). */
  static final int MAX_PREFIX_LENGTH = 64;

  /**
   * While a read batch is handled, the frames that wait in the batch buffer are flushed once there
   * are this many (and the peer has taken what we sent before), not only at the end of the batch:
   * a pipelined peer then works on the first answers while we handle the rest, instead of both ends
   * taking turns. Counted in frames, not bytes, so that each flush carries enough frames to pay for
   * its syscall and the peer's wake-up whatever their size (large frames fill the 64 KiB batch,
   * which goes out when full anyway).
   */
  static final int EARLY_FLUSH_FRAMES = 128;

  private final SluiceConnection conn;
  private final DuplexTransport transport;
  private final EventExecutor loop;
  private final ByteBufAllocator alloc;
  /** Frames are encoded back to back into batches (u24 length or the transport's prefix). */
  private final boolean prefixed;
  /**
   * The transport's prefix ({@link DuplexTransport.Framing#TRANSPORT_PREFIXED}), or null for the
   * u24 length: that path stays a direct write, with no call through the interface.
   */
  private final FramePrefix framePrefix;
  /** Bytes reserved in the batch for a frame's prefix: 3, or the transport prefix's longest. */
  private final int prefixRoom;
  private final int mtu;
  /**
   * Largest ERROR frame written: an ERROR cannot be fragmented, so its data is cut to fit the u24
   * length and this connection's own frame limit (a peer with the same options refuses larger
   * frames by closing the connection).
   */
  private final int largestError;

  private ByteBuf batch;
  /** Frames encoded into {@link #batch}. */
  private int batchFrames;
  /**
   * {@link #batch} holds a frame a resumable session must read itself: one on stream 0 or of a
   * type the spec does not count, one larger than the session's store copies, or the head of a
   * frame whose rest follows as its own writes (see {@link #writeBatch}).
   */
  private boolean batchNeedsWalk;
  /** The resumable session the engine writes to, or null (see {@link #writeBatch}). */
  private final ResumableSession session;
  private boolean flushPending;
  private boolean flushTaskScheduled;
  /** An inbound read batch is being handled: its end flushes (see {@link #readBatchEnded}). */
  private boolean inReadBatch;
  /**
   * A REQUEST_N that the peer may be waiting for was queued while handling the current inbound
   * frame: flush once that frame is handled instead of at the end of the read batch.
   */
  private boolean flushAfterFrame;
  /** The early flush of {@link #flushAfterFrame} already happened in this read batch. */
  private boolean earlyFlushDone;
  private final Runnable flushTask = this::flushTaskRun;
  /**
   * The transport is flushing a full batch while a frame is encoded (see {@link
   * #beginFrameHead}): a writability change it reports must not let producers write now, or a
   * stream's next frame would land between the fragments of its message (see {@link
   * Writability#onWritabilityChanged}).
   */
  boolean flushingMidFrame;
  /**
   * The connection is closed: nothing more is written. A copy of its state kept here (set by
   * {@code SluiceConnection.setState}), read for every frame without a hop to the connection.
   */
  boolean closed;
  /** The connection's counts, or null when no observer is set (see {@code StreamTable}). */
  private final ConnectionCounters counters;

  FrameWriter(SluiceConnection conn) {
    this.conn = conn;
    this.counters = conn.streams.counters;
    this.transport = conn.transport;
    this.session = transport instanceof ResumableSession ? (ResumableSession) transport : null;
    this.loop = conn.loop;
    this.alloc = conn.alloc;
    DuplexTransport.Framing framing = transport.framing();
    this.prefixed = framing != DuplexTransport.Framing.FRAME_PER_WRITE;
    this.framePrefix =
        framing == DuplexTransport.Framing.TRANSPORT_PREFIXED ? checkedPrefix(transport) : null;
    this.prefixRoom = framePrefix != null ? framePrefix.maxLength() : 3; // 3: the u24 length
    this.mtu = conn.options.mtu();
    this.largestError = Math.min(Frames.MAX_FRAME_SIZE, conn.options.maxFrameSize());
  }

  private static FramePrefix checkedPrefix(DuplexTransport transport) {
    FramePrefix prefix = transport.framePrefix();
    if (prefix == null) {
      throw new IllegalStateException(
          transport.getClass().getName()
              + " says its framing is TRANSPORT_PREFIXED but its framePrefix() is null");
    }
    int max = prefix.maxLength();
    if (max < 1 || max > MAX_PREFIX_LENGTH) {
      throw new IllegalStateException(
          transport.getClass().getName()
              + ": framePrefix().maxLength() must be 1 to "
              + MAX_PREFIX_LENGTH
              + ", got "
              + max);
    }
    return prefix;
  }

  // ---- read batches: when to flush -----------------------------------------------------------

  /** An inbound frame is about to be handled. */
  void readBatchFrame() {
    inReadBatch = true;
  }

  /**
   * An inbound frame was handled: flush early if a REQUEST_N the peer may wait for is queued, or
   * if enough frames wait and the peer has taken what we sent before.
   */
  void inboundFrameHandled() {
    if (flushAfterFrame) {
      flushAfterFrame = false;
      earlyFlushDone = true;
      if (!closed) {
        flushNow();
      }
    } else if (batch != null
        && batchFrames >= EARLY_FLUSH_FRAMES
        && !closed
        && transport.unsentBytes() == 0) {
      flushNow();
    }
  }

  /** The read batch is over: flush what it made us write. */
  void readBatchEnded() {
    inReadBatch = false;
    flushAfterFrame = false;
    earlyFlushDone = false;
    flushNow();
  }

  /** The transport has closed: drops the batch being filled. */
  void releaseBatch() {
    if (batch != null) {
      batch.release();
      batch = null;
    }
  }

  // ---- frames ----------------------------------------------------------------------------------

  /**
   * Writes a request or PAYLOAD frame carrying {@code message} (null: no payload, for PAYLOAD C),
   * fragmenting it above the MTU. Takes ownership of {@code message}.
   */
  void sendPayload(int streamId, int type, int flags, int initialN, Message message) {
    if (closed) {
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
    ConnectionCounters c = counters;
    if (c != null) {
      c.frameOut(type, frameSize);
      if (type == FrameType.REQUEST_FNF) {
        c.streamStarted(type);
        c.streamEnded(type, ConnectionStats.Outcome.COMPLETE);
      }
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
      // The batch with the head goes to the transport: detached first, and marked as a flush
      // mid-frame is, so that a writability change reported from inside these writes pumps no
      // producer into that batch or between the head and the payload (see flushingMidFrame).
      batch = null;
      boolean outer = flushingMidFrame;
      flushingMidFrame = true;
      try {
        transport.write(head);
        if (metadata != null) {
          transport.write(metadata);
        }
        transport.write(data);
      } finally {
        flushingMidFrame = outer;
      }
    } else {
      CompositeByteBuf composite = alloc.compositeBuffer(3);
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
    // Marked for the whole message: on a transport that takes one frame per write each fragment
    // is its own write, and a writability change reported from inside one must pump no producer
    // before the next fragment (see flushingMidFrame).
    boolean outer = flushingMidFrame;
    flushingMidFrame = true;
    try {
      writeFragmentsMarked(streamId, type, flags, initialN, metadata, data, limit);
    } finally {
      flushingMidFrame = outer;
    }
  }

  private void writeFragmentsMarked(
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
      if (first && counters != null && type == FrameType.REQUEST_FNF) {
        counters.streamStarted(type);
        counters.streamEnded(type, ConnectionStats.Outcome.COMPLETE);
      }
      ByteBuf out = beginFrame(frameType, size);
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
    if (closed) {
      return;
    }
    ByteBuf out = beginFrame(FrameType.REQUEST_N, Frames.HEADER_SIZE + 4);
    Frames.writeRequestN(out, streamId, n);
    endFrame(out);
    if (urgent && inReadBatch && !earlyFlushDone) {
      flushAfterFrame = true;
    }
  }

  void sendCancel(int streamId) {
    if (closed) {
      return;
    }
    conn.writability.noteUnpaid(Frames.HEADER_SIZE);
    ByteBuf out = beginFrame(FrameType.CANCEL, Frames.HEADER_SIZE);
    Frames.writeCancel(out, streamId);
    endFrame(out);
  }

  void sendError(int streamId, int code, String message) {
    if (closed) {
      return;
    }
    int size = Frames.errorSize(message);
    if (size > largestError) {
      message = Frames.truncateUtf8(message, largestError - Frames.errorSize(null));
      size = Frames.errorSize(message);
      conn.in.limitHit(ConnectionStats.Limit.OUTBOUND_ERROR_SIZE);
    }
    conn.writability.noteUnpaid(size);
    if (counters != null) {
      counters.errorOut(code);
    }
    ByteBuf out = beginFrame(FrameType.ERROR, size);
    if (streamId == 0) {
      batchNeedsWalk = true; // a connection ERROR: not counted
    }
    Frames.writeError(out, streamId, code, message);
    endFrame(out);
  }

  /** As {@link #beginFrame(int)}, counting a frame of {@code type} for the observer. */
  ByteBuf beginFrame(int type, int size) {
    if (counters != null) {
      counters.frameOut(type, size);
    }
    ByteBuf out = beginFrame(size);
    if (!ResumableSession.counted(type)) {
      batchNeedsWalk = true; // SETUP, LEASE, KEEPALIVE, METADATA_PUSH: stream 0, not counted
    }
    return out;
  }

  /**
   * The refusal of a METADATA_PUSH too large to send, counted as a limit hit; {@code message}
   * says why.
   */
  IllegalArgumentException refusedPush(String message) {
    conn.in.limitHit(ConnectionStats.Limit.OUTBOUND_METADATA_PUSH_SIZE);
    return new IllegalArgumentException(message);
  }

  /** Returns a buffer with room for one frame of {@code size} bytes (prefix already written). */
  ByteBuf beginFrame(int size) {
    checkFrameSize(size);
    if (!prefixed) {
      return alloc.ioBuffer(size);
    }
    return beginFrameHead(size, size);
  }

  /**
   * Writes the prefix (u24 length or the transport's) of a frame of {@code size} bytes into the
   * batch, making sure {@code room} bytes of it fit behind the prefix.
   */
  private ByteBuf beginFrameHead(int size, int room) {
    checkFrameSize(size);
    ByteBuf b = batch;
    while (b == null || b.writableBytes() < room + prefixRoom) {
      if (b == null) {
        b = batch = alloc.ioBuffer(Math.max(BATCH_SIZE, room + prefixRoom));
        batchFrames = 0;
        batchNeedsWalk = false;
        break;
      }
      // A full batch goes to the socket now, so the kernel sends while we encode the next one.
      // Detach it first: the write or the flush can report writability at once (netty fires it
      // from inside flush; a resumable session from its write, as its store or link changes), and
      // frames that handler encodes must go into a new batch, never into this one, which belongs
      // to the transport now (and may already be released). Marked before the write for that.
      batch = null;
      boolean outer = flushingMidFrame; // set for the whole of a fragmented message
      flushingMidFrame = true;
      try {
        writeBatch(b);
        transport.flush();
      } finally {
        flushingMidFrame = outer;
      }
      b = batch; // null, or a batch a re-entrant writer started during the flush
    }
    if (framePrefix == null) {
      Frames.writeU24(b, size);
    } else {
      framePrefix.write(b, size);
    }
    batchFrames++;
    if (room < size || size > ResumeStore.COPY_LIMIT) {
      batchNeedsWalk = true; // a frame's head (its rest follows), or one the store does not copy
    }
    return b;
  }

  /**
   * Hands a batch of whole frames to the transport. A resumable session is told when every frame
   * in it is one the spec counts and its store copies ({@link #batchNeedsWalk} clear): it then
   * stores the batch with one copy without reading each frame's head, the walk that was most of
   * its cost per message. Every frame written on stream 0 or of an uncounted type sets the flag
   * ({@link #beginFrame(int, int)}, {@link #sendError}); frames written with {@link
   * #beginFrame(int)} alone are requests and PAYLOADs on their stream.
   */
  private void writeBatch(ByteBuf b) {
    if (session != null && !batchNeedsWalk) {
      session.writeCounted(b, batchFrames);
    } else {
      transport.write(b);
    }
  }

  /**
   * Refuses a frame the u24 length cannot describe, before anything of it is written: its length
   * would wrap, and the peer would read the rest of it as further frames.
   */
  static void checkFrameSize(int size) {
    if (size < 0 || size > Frames.MAX_FRAME_SIZE) {
      throw new IllegalArgumentException(
          "a frame of " + size + " bytes is larger than the largest frame (" + Frames.MAX_FRAME_SIZE + " bytes)");
    }
  }

  void endFrame(ByteBuf out) {
    if (!prefixed) {
      transport.write(out);
    }
    requestFlush();
  }

  void requestFlush() {
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

  void flushNow() {
    if (batch != null) {
      ByteBuf b = batch;
      batch = null;
      if (b.isReadable()) {
        writeBatch(b);
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

  /** Writes KEEPALIVE; {@code data} (may be null) is copied, not taken. */
  void writeKeepAlive(boolean respond, ByteBuf data) {
    int size = Frames.HEADER_SIZE + 8 + (data == null ? 0 : data.readableBytes());
    ByteBuf out = beginFrame(FrameType.KEEPALIVE, size);
    Frames.writeKeepAlive(out, respond, 0, data);
    endFrame(out);
  }

  /**
   * Writes LEASE; a {@code maxRank} other than {@link LeaseGrants#ALL_RANKS} travels as its 4-byte
   * big-endian metadata (Sluice's convention, see {@link LeaseGrants#grant}).
   */
  void writeLease(int ttlMillis, int requests, int maxRank) {
    boolean ranked = maxRank != LeaseGrants.ALL_RANKS;
    ByteBuf out = beginFrame(FrameType.LEASE, Frames.HEADER_SIZE + 8 + (ranked ? 4 : 0));
    Frames.writeHeader(out, 0, FrameType.LEASE, ranked ? Frames.FLAG_METADATA : 0);
    out.writeInt(ttlMillis & 0x7FFFFFFF);
    out.writeInt(requests & 0x7FFFFFFF);
    if (ranked) {
      out.writeInt(maxRank);
    }
    endFrame(out);
  }
}
