package io.sluice.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ByteBufAllocator} that hands out {@link PooledByteBufAllocator#DEFAULT} buffers and
 * remembers every one, so that after one fuzz input we can check, exactly and at once, that each
 * buffer allocated while handling it was released. netty's own leak detector reports only when a
 * leaked buffer is garbage collected, which is too late (and too rare) to pin a leak on one input.
 *
 * <p>Derived buffers (slices, duplicates, retained slices) are covered through their root buffer:
 * a retained slice that is never released keeps its root's reference count above zero. Composite
 * buffers are created here, owned by this allocator (so their internal allocations are tracked
 * too), and recorded themselves.
 *
 * <p>Confined to one thread (the embedded channel's "event loop" is the fuzzing thread).
 */
final class TrackingAllocator implements ByteBufAllocator {
  private final ByteBufAllocator delegate = PooledByteBufAllocator.DEFAULT;
  private final boolean recordSites;
  private final List<ByteBuf> buffers = new ArrayList<>();
  private final List<Throwable> sites = new ArrayList<>();

  /** @param recordSites keep the stack of each allocation, to say where a leaked buffer came from */
  TrackingAllocator(boolean recordSites) {
    this.recordSites = recordSites;
  }

  private <T extends ByteBuf> T track(T buf) {
    buffers.add(buf);
    if (recordSites) {
      sites.add(new Throwable("allocated here"));
    }
    return buf;
  }

  int allocations() {
    return buffers.size();
  }

  /**
   * Describes every tracked buffer whose reference count is not zero (empty when all were released).
   */
  List<String> unreleased() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < buffers.size(); i++) {
      ByteBuf b = buffers.get(i);
      if (b.refCnt() != 0) {
        StringBuilder s = new StringBuilder();
        s.append(b.getClass().getSimpleName())
            .append(" refCnt=")
            .append(b.refCnt())
            .append(" capacity=")
            .append(b.capacity())
            .append(" writerIndex=")
            .append(b.writerIndex());
        int n = Math.min(b.writerIndex(), 64);
        if (n > 0) {
          s.append(" first bytes=").append(ByteBufUtil.hexDump(b, 0, n));
        }
        if (recordSites) {
          s.append(System.lineSeparator()).append(stack(sites.get(i)));
        }
        out.add(s.toString());
      }
    }
    return out;
  }

  /** Releases whatever is still held, so a failing input does not also exhaust the pool. */
  void releaseAll() {
    for (ByteBuf b : buffers) {
      int refCnt = b.refCnt();
      if (refCnt > 0) {
        b.release(refCnt);
      }
    }
  }

  private static String stack(Throwable t) {
    StringBuilder s = new StringBuilder();
    StackTraceElement[] trace = t.getStackTrace();
    for (int i = 0; i < Math.min(trace.length, 24); i++) {
      s.append("    at ").append(trace[i]).append(System.lineSeparator());
    }
    return s.toString();
  }

  // ---- ByteBufAllocator ----------------------------------------------------------------------

  @Override
  public ByteBuf buffer() {
    return track(delegate.buffer());
  }

  @Override
  public ByteBuf buffer(int initialCapacity) {
    return track(delegate.buffer(initialCapacity));
  }

  @Override
  public ByteBuf buffer(int initialCapacity, int maxCapacity) {
    return track(delegate.buffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf ioBuffer() {
    return track(delegate.ioBuffer());
  }

  @Override
  public ByteBuf ioBuffer(int initialCapacity) {
    return track(delegate.ioBuffer(initialCapacity));
  }

  @Override
  public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.ioBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf heapBuffer() {
    return track(delegate.heapBuffer());
  }

  @Override
  public ByteBuf heapBuffer(int initialCapacity) {
    return track(delegate.heapBuffer(initialCapacity));
  }

  @Override
  public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.heapBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public ByteBuf directBuffer() {
    return track(delegate.directBuffer());
  }

  @Override
  public ByteBuf directBuffer(int initialCapacity) {
    return track(delegate.directBuffer(initialCapacity));
  }

  @Override
  public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public CompositeByteBuf compositeBuffer() {
    return compositeBuffer(16);
  }

  @Override
  public CompositeByteBuf compositeBuffer(int maxNumComponents) {
    return compositeDirectBuffer(maxNumComponents);
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer() {
    return compositeHeapBuffer(16);
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return track(new CompositeByteBuf(this, false, maxNumComponents));
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer() {
    return compositeDirectBuffer(16);
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return track(new CompositeByteBuf(this, true, maxNumComponents));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return delegate.isDirectBufferPooled();
  }

  @Override
  public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
    return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
  }
}
