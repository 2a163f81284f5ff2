package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.internal.frame.Frames;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The sent frames of one resumable session that the peer has not acknowledged yet, with their
 * positions (RSocket's implied position: the bytes of the frames the spec counts, without length
 * prefix, sent so far). Bounded in bytes: {@link #add} refuses a frame that would take it past its
 * bound (and past the server-wide {@link ResumeBudget}, if any) instead of growing.
 *
 * <p><b>Layout.</b> The frames are held as a queue of chunks, each a run of frames every one
 * preceded by its 3-byte length; a chunk's reader index is its first unacknowledged frame. A frame
 * of up to {@link #COPY_LIMIT} bytes is copied into the open chunk at the tail (a few dozen bytes
 * copied cost less than a retained slice, and free the sender's batch at once; a run of them that
 * lies length-prefixed in the sender's batch is copied at once, {@link #addRun}); a larger one
 * becomes a chunk of its own (its length and a retained slice of it, no copy). The store thus
 * costs no allocation and no reference count per small frame: an acknowledgement walks the length
 * prefixes and releases whole chunks, the open one too once all is acknowledged. Each chunk knows
 * the count and bytes of its unacknowledged frames, so an acknowledgement drops a chunk whose
 * frames it covers whole without reading them and walks only the chunk it ends in.
 *
 * <p><b>Spares.</b> A chunk is {@link #CHUNK_SIZE}, or a larger power of two for a run that does
 * not fit one (a batch of the engine's writer, at most 64 KiB). A dropped chunk is kept as a spare
 * (at most {@link #SPARES}) for the next chunk opened, until the store is idle: an acknowledgement
 * finds it empty with nothing stored since the previous one (an idle session's peer acknowledges
 * with each KEEPALIVE, so within two of them). A fast stream otherwise allocates and frees a chunk
 * per 16 KiB, which cost the server more than the copy into it. A spare's capacity and the frames'
 * bytes stay within the store's own bound; a frame that needs their room gets it (the spares are
 * released first). Spares take nothing of the budget shared by all sessions: it holds frames only,
 * so one session's spares never get another session's frames refused (a cache must not end a
 * session); what spares add beyond the budget is at most two chunks per session that keeps storing
 * between acknowledgements, none once it is idle (docs/limits.md). A
 * chunk that replay slices still share ({@link #replayFrom}: queued on a transport) is never reused:
 * the store releases its reference and the slices keep the memory until they are written.
 *
 * <p><b>Memory.</b> A frame never spans chunks. A chunk is left at least half full, or with an
 * unused tail smaller than the frame (or the slice) held after it: a run that does not fit a chunk
 * less than half full fills it frame by frame. The memory held is thus at most twice the frames'
 * bytes and their 3-byte lengths, plus one chunk (at most 64 KiB); the spares (two chunks, at
 * most 64 KiB each, none once idle) fit the store's bound together with the frames.
 *
 * <p><b>Buffers.</b> The store owns its chunks and releases them when the peer acknowledges their
 * frames ({@link #trimTo}) or when the session ends ({@link #release}). Replay hands out retained
 * slices. Confined to the session's event loop.
 */
final class ResumeStore {
  /** Size of a chunk that frames are copied into. */
  static final int CHUNK_SIZE = 16 * 1024;

  /**
   * Frames up to this size are copied into the open chunk; larger ones are held as slices. As large
   * as a chunk: the chunk opened after a slice then wastes at most as much as that slice holds.
   */
  static final int COPY_LIMIT = CHUNK_SIZE;

  /** Dropped chunks kept for reuse until the store is idle. */
  static final int SPARES = 2;

  /**
   * Largest chunk kept as a spare. A run larger than a chunk (a batch of the engine's writer:
   * up to 64 KiB) gets a chunk of its size rounded up to a power of two, so that a spare fits the
   * next such run.
   */
  static final int MAX_SPARE_SIZE = 4 * CHUNK_SIZE;

  private static final int PREFIX = 3;

  /**
   * A buffer of frames each behind its 3-byte length, from its reader index (its first frame not
   * acknowledged) on, with the count and bytes (without lengths) of those frames.
   */
  private static final class Chunk {
    final ByteBuf buf;
    /** A copy chunk of at most {@link ResumeStore#MAX_SPARE_SIZE}: may be kept as a spare. */
    final boolean reusable;
    int frames;
    long bytes;

    Chunk(ByteBuf buf, boolean reusable) {
      this.buf = buf;
      this.reusable = reusable;
    }
  }

  private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
  /** Dropped chunks of {@link #CHUNK_SIZE}, cleared, for the next ones opened (see {@link #trimTo}). */
  private final ArrayDeque<Chunk> spares = new ArrayDeque<>(SPARES);
  /** The capacity of {@link #spares}: counted with {@link #bytes} in the store's bound (not the shared budget). */
  private long spareBytes;
  private final ByteBufAllocator alloc;
  private final long maxBytes;
  private final ResumeBudget budget;

  /** The chunk small frames are copied into (the last of {@link #chunks}), or null. */
  private Chunk open;

  /** Position of the first frame held (everything before it was acknowledged). */
  private long firstPosition;

  private long bytes;
  private int frameCount;
  private long highWater;

  /** Bytes taken from the shared budget (in steps, so the budget is not touched per frame). */
  private long reserved;

  private boolean released;

  /** A frame was stored since the last {@link #trimTo}: the spares are still wanted. */
  private boolean storedSinceTrim;

  /** The last refused {@link #add} was refused by the shared budget, not by this store's bound. */
  private boolean refusedByBudget;

  ResumeStore(ByteBufAllocator alloc, long maxBytes, ResumeBudget budget) {
    this.alloc = alloc;
    this.maxBytes = maxBytes;
    this.budget = budget;
  }

  long firstPosition() {
    return firstPosition;
  }

  /** The position after the last frame stored: the bytes of counted frames sent so far. */
  long endPosition() {
    return firstPosition + bytes;
  }

  long bytes() {
    return bytes;
  }

  long maxBytes() {
    return maxBytes;
  }

  /** The most bytes the store ever held. */
  long highWater() {
    return highWater;
  }

  int frameCount() {
    return frameCount;
  }

  /** Dropped chunks kept for reuse (at most {@link #SPARES}, none once idle). */
  int spareChunks() {
    return spares.size();
  }

  /** The capacity of the spares (held within the bound and the budget with the frames). */
  long spareBytes() {
    return spareBytes;
  }

  /**
   * Stores the frame at {@code src[off, off + len)} (a view: the caller keeps its buffer; small
   * frames are copied, large ones retained as a slice). False when it would take the store past its
   * bound or the shared budget: the frame is then not stored.
   */
  boolean add(ByteBuf src, int off, int len) {
    if (!admits(len)) {
      return false;
    }
    Chunk c;
    if (len <= COPY_LIMIT) {
      c = chunkWithRoom(PREFIX + len);
      c.buf.writeMedium(len).writeBytes(src, off, len);
    } else {
      ByteBuf head = alloc.buffer(PREFIX, PREFIX).writeMedium(len);
      c =
          new Chunk(
              alloc.compositeBuffer(2).addComponents(true, head, src.retainedSlice(off, len)),
              false);
      chunks.addLast(c);
      open = null;
    }
    c.frames++;
    c.bytes += len;
    stored(1, len);
    return true;
  }

  /**
   * Stores {@code frames} frames of {@code frameBytes} bytes in all, each of at most {@link
   * #COPY_LIMIT} bytes and each preceded by its 3-byte length, that lie at {@code src[from, to)}:
   * one copy for the run. False, storing nothing, when they would take the store past its bound or
   * the shared budget (the caller then tries them one by one with {@link #add}).
   */
  boolean addRun(ByteBuf src, int from, int to, int frames, long frameBytes) {
    if (!admits(frameBytes)) {
      return false;
    }
    Chunk o = open;
    int restFrames = frames;
    long restBytes = frameBytes;
    if (o != null
        && o.buf.writableBytes() < to - from
        && o.buf.writerIndex() < o.buf.capacity() / 2) {
      // Fill the open chunk with the frames that fit (a frame never spans chunks), the rest go to
      // a new one. (A chunk at least half full is left as it is: no frame of the run is read.)
      int fits = from;
      for (int room = o.buf.writableBytes(), n; fits < to; fits += PREFIX + n) {
        n = Frames.getU24(src, fits);
        if (PREFIX + n > room) {
          break;
        }
        room -= PREFIX + n;
        o.frames++;
        o.bytes += n;
        restFrames--;
        restBytes -= n;
      }
      o.buf.writeBytes(src, from, fits - from);
      from = fits;
    }
    if (from < to) {
      Chunk c = chunkWithRoom(to - from);
      c.buf.writeBytes(src, from, to - from);
      c.frames += restFrames;
      c.bytes += restBytes;
    }
    stored(frames, frameBytes);
    return true;
  }

  /** May {@code more} frame bytes be stored (the bound, the shared budget)? */
  private boolean admits(long more) {
    long need = bytes + more;
    if (released || need > maxBytes) {
      refusedByBudget = false;
      return false;
    }
    if (need + spareBytes > maxBytes) {
      releaseSpares(); // frames before spares: the room within the bound is the frame's
    }
    if (!reserve(need)) {
      refusedByBudget = true;
      return false;
    }
    return true;
  }

  /**
   * The open chunk if it has {@code n} bytes free, else a new open chunk of at least that many (a
   * spare if one is kept and large enough).
   */
  private Chunk chunkWithRoom(int n) {
    Chunk o = open;
    if (o == null || o.buf.writableBytes() < n) {
      o = null;
      for (Chunk c : spares) {
        if (c.buf.capacity() >= n) {
          o = c;
          spares.remove(c);
          spareBytes -= c.buf.capacity();
          break;
        }
      }
      if (o == null) {
        int size = n <= CHUNK_SIZE ? CHUNK_SIZE : Integer.highestOneBit(n - 1) << 1;
        o = new Chunk(alloc.buffer(size, size), size <= MAX_SPARE_SIZE);
      }
      chunks.addLast(o);
      open = o;
    }
    return o;
  }

  private void stored(int frames, long frameBytes) {
    storedSinceTrim = true;
    frameCount += frames;
    bytes += frameBytes;
    if (bytes > highWater) {
      highWater = bytes;
    }
  }

  /** Did the shared budget (not this store's own bound) refuse the last frame refused? */
  boolean refusedByBudget() {
    return refusedByBudget;
  }

  /**
   * Takes the first step of the shared budget (a server's session, at its SETUP), so that a
   * session admitted can always hold a little whatever other sessions hold. False if the budget
   * has no step left.
   */
  boolean reserveFirstStep() {
    return reserve(1);
  }

  /**
   * The most this store can hold now: its bound, or less while the shared budget cannot give it
   * more (a racy read of the budget; the session pauses its producers at half of it).
   */
  long reachableBytes() {
    return budget == null ? maxBytes : Math.min(maxBytes, reserved + budget.available());
  }

  /** The server's budget for all stores, or -1 (a client's store). */
  long budgetMax() {
    return budget == null ? -1 : budget.max();
  }

  /**
   * Drops the frames that end at or before {@code position} (the peer has them). A position inside
   * a frame keeps that frame. Positions behind what was already dropped change nothing.
   */
  void trimTo(long position) {
    Chunk c;
    while ((c = chunks.peekFirst()) != null) {
      if (firstPosition + c.bytes > position) {
        // The acknowledgement ends in this chunk: drop its frames that end at or before it.
        ByteBuf b = c.buf;
        int r = b.readerIndex();
        for (int n; firstPosition + (n = Frames.getU24(b, r)) <= position; r += PREFIX + n) {
          firstPosition += n;
          bytes -= n;
          frameCount--;
          c.frames--;
          c.bytes -= n;
        }
        b.readerIndex(r);
        break;
      }
      // Every frame of the chunk is acknowledged: dropped without reading them.
      firstPosition += c.bytes;
      bytes -= c.bytes;
      frameCount -= c.frames;
      chunks.pollFirst();
      if (c == open) {
        open = null; // all acknowledged: an idle session holds no chunk
      }
      if (c.reusable && spares.size() < SPARES && c.buf.refCnt() == 1 && keepsSpare(c.buf)) {
        c.buf.clear();
        c.frames = 0;
        c.bytes = 0;
        spares.addLast(c);
        spareBytes += c.buf.capacity();
      } else {
        // Not kept: more spares than wanted, no room in the bound or the budget, or replay
        // slices of it still queued on a transport (they keep it until written; never cleared
        // and refilled under them).
        c.buf.release();
      }
    }
    if (chunks.isEmpty() && !storedSinceTrim) {
      // All acknowledged twice with nothing stored between: idle, it holds no chunk. (A stream
      // paced by the peer's credit is often all acknowledged for a moment: it keeps its spares.)
      releaseSpares();
    }
    storedSinceTrim = false;
    unreserve();
  }

  /** Is there room for {@code b} as a spare beside the frames: within the bound and the budget? */
  private boolean keepsSpare(ByteBuf b) {
    return bytes + spareBytes + b.capacity() <= maxBytes;
  }

  private void releaseSpares() {
    Chunk c;
    while ((c = spares.pollFirst()) != null) {
      c.buf.release();
    }
    spareBytes = 0;
  }

  /** Is {@code position} one this store can replay from: held, and at a frame boundary? */
  boolean canReplayFrom(long position) {
    if (position < firstPosition || position > endPosition()) {
      return false;
    }
    long at = firstPosition;
    for (Chunk c : chunks) {
      if (at + c.bytes <= position) {
        at += c.bytes; // the position is at its end or beyond: its frames need not be read
        continue;
      }
      ByteBuf b = c.buf;
      for (int r = b.readerIndex(), w = b.writerIndex(); r < w && at < position; ) {
        int n = Frames.getU24(b, r);
        at += n;
        r += PREFIX + n;
      }
      break;
    }
    return at == position;
  }

  /** Hands every frame from {@code position} on (a boundary, see {@link #canReplayFrom}) to sink. */
  void replayFrom(long position, Consumer<ByteBuf> sink) {
    long at = firstPosition;
    for (Chunk c : chunks) {
      if (at + c.bytes <= position) {
        at += c.bytes; // all before the position
        continue;
      }
      ByteBuf b = c.buf;
      for (int r = b.readerIndex(), w = b.writerIndex(); r < w; ) {
        int n = Frames.getU24(b, r);
        if (at >= position) {
          sink.accept(b.retainedSlice(r + PREFIX, n));
        }
        at += n;
        r += PREFIX + n;
      }
    }
  }

  /** Releases every frame and the budget; the store takes nothing more. Idempotent. */
  void release() {
    if (released) {
      return;
    }
    released = true;
    Chunk c;
    while ((c = chunks.pollFirst()) != null) {
      c.buf.release();
    }
    releaseSpares();
    open = null;
    firstPosition += bytes;
    bytes = 0;
    frameCount = 0;
    if (budget != null && reserved > 0) {
      budget.giveBack(reserved);
    }
    reserved = 0;
  }

  private boolean reserve(long needed) {
    if (budget == null || needed <= reserved) {
      return true;
    }
    long step = Math.max(ResumeBudget.STEP, needed - reserved);
    step = Math.min(step, maxBytes - reserved);
    if (step < needed - reserved || !budget.take(step)) {
      return false;
    }
    reserved += step;
    return true;
  }

  private void unreserve() {
    if (budget != null && reserved - bytes > 2 * ResumeBudget.STEP) {
      long back = reserved - bytes - ResumeBudget.STEP;
      reserved -= back;
      budget.giveBack(back);
    }
  }
}
