package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The sent frames of one resumable session that the peer has not acknowledged yet, with their
 * positions (RSocket's implied position: the bytes of the frames the spec counts, without length
 * prefix, sent so far). Bounded in bytes: {@link #add} refuses a frame that would take it past its
 * bound (and past the server-wide {@link ResumeBudget}, if any) instead of growing.
 *
 * <p><b>Buffers.</b> The store owns each frame it holds (a retained slice of an outbound batch, or
 * a composite of slices for a frame that spanned writes) and releases it when the peer
 * acknowledges it ({@link #trimTo}) or when the session ends ({@link #release}). Replay hands out
 * retained duplicates. Confined to the session's event loop.
 */
final class ResumeStore {
  private final ArrayDeque<ByteBuf> frames = new ArrayDeque<>();
  private final long maxBytes;
  private final ResumeBudget budget;
  /** Position of the first frame held (everything before it was acknowledged). */
  private long firstPosition;
  private long bytes;
  private long highWater;
  /** Bytes taken from the shared budget (in steps, so the budget is not touched per frame). */
  private long reserved;
  private boolean released;
  /** The last refused {@link #add} was refused by the shared budget, not by this store's bound. */
  private boolean refusedByBudget;

  ResumeStore(long maxBytes, ResumeBudget budget) {
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
    return frames.size();
  }

  /**
   * Stores {@code frame} (ownership passes here either way). False when it would take the store
   * past its bound or the shared budget: the frame is then released and not stored.
   */
  boolean add(ByteBuf frame) {
    int n = frame.readableBytes();
    if (released || bytes + n > maxBytes || !reserve(bytes + n)) {
      refusedByBudget = !released && bytes + n <= maxBytes;
      frame.release();
      return false;
    }
    frames.addLast(frame);
    bytes += n;
    if (bytes > highWater) {
      highWater = bytes;
    }
    return true;
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
    while (!frames.isEmpty()) {
      ByteBuf f = frames.peekFirst();
      int n = f.readableBytes();
      if (firstPosition + n > position) {
        break;
      }
      frames.pollFirst();
      firstPosition += n;
      bytes -= n;
      f.release();
    }
    unreserve();
  }

  /** Is {@code position} one this store can replay from: held, and at a frame boundary? */
  boolean canReplayFrom(long position) {
    if (position < firstPosition || position > endPosition()) {
      return false;
    }
    long at = firstPosition;
    for (ByteBuf f : frames) {
      if (at >= position) {
        break;
      }
      at += f.readableBytes();
    }
    return at == position;
  }

  /** Hands every frame from {@code position} on (a boundary, see {@link #canReplayFrom}) to sink. */
  void replayFrom(long position, Consumer<ByteBuf> sink) {
    long at = firstPosition;
    for (ByteBuf f : frames) {
      if (at >= position) {
        sink.accept(f.retainedDuplicate());
      }
      at += f.readableBytes();
    }
  }

  /** Releases every frame and the budget; the store takes nothing more. Idempotent. */
  void release() {
    if (released) {
      return;
    }
    released = true;
    ByteBuf f;
    while ((f = frames.pollFirst()) != null) {
      firstPosition += f.readableBytes();
      f.release();
    }
    bytes = 0;
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
