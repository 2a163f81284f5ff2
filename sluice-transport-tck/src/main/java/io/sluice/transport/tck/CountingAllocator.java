package io.sluice.transport.tck;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Allocates direct buffers from {@link UnpooledByteBufAllocator#DEFAULT} (netty's leak detector
 * tracks those too) and remembers them, so a test can ask at any moment how many bytes of what it
 * allocated are still held somewhere: in a transport's outbound queue, in flight to a peer, or
 * leaked. Unpooled on purpose: a pooled buffer object is recycled once released, and a recycled
 * one handed out again would count as held twice.
 *
 * <p>Only {@link #buffer(int)} is offered: the kit builds every message it sends with it.
 *
 * <p><b>Threads.</b> Thread-safe: buffers may be allocated and released on any thread; {@link
 * #outstandingBytes()} reads reference counts, so it sees releases made on other threads with the
 * usual delay of a volatile read. <b>Buffers.</b> Each buffer belongs to the caller that allocated
 * it; this class only looks at it.
 */
public final class CountingAllocator {
  private final ByteBufAllocator delegate = UnpooledByteBufAllocator.DEFAULT;
  private final ConcurrentLinkedQueue<ByteBuf> live = new ConcurrentLinkedQueue<>();

  /**
   * A direct buffer of {@code capacity} bytes; the caller owns it. Zero bytes give netty's shared
   * empty buffer, which is not counted (it is never freed).
   */
  public ByteBuf buffer(int capacity) {
    if (capacity == 0) {
      return Unpooled.EMPTY_BUFFER;
    }
    ByteBuf b = delegate.directBuffer(capacity, capacity);
    live.add(b);
    return b;
  }

  /**
   * Capacity of every buffer allocated here that is not released yet; forgets the released ones.
   */
  public long outstandingBytes() {
    long sum = 0;
    for (Iterator<ByteBuf> it = live.iterator(); it.hasNext(); ) {
      ByteBuf b = it.next();
      if (b.refCnt() == 0) {
        it.remove();
      } else {
        sum += b.capacity();
      }
    }
    return sum;
  }

  /** Number of buffers allocated here and not released yet. */
  public int outstandingBuffers() {
    outstandingBytes();
    return live.size();
  }

  /** Releases whatever is still held (after a failed test, so one failure does not cause more). */
  public void releaseAll() {
    for (ByteBuf b; (b = live.poll()) != null; ) {
      int n = b.refCnt();
      if (n > 0) {
        b.release(n);
      }
    }
  }
}
