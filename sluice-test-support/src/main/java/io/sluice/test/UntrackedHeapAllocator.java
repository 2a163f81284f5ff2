package io.sluice.test;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * An allocator whose every buffer (heap, "direct", io, composite) is a plain unpooled heap buffer
 * that netty's leak detector does not track: an unreleased one is simply garbage-collected.
 *
 * <p>For tests driven by code that never releases what it receives, such as the Reactive Streams
 * TCK's own subscribers. Over the local transport a received {@link io.sluice.Message} is a retained
 * slice of the frame buffer the <em>sending</em> connection allocated, so giving the sending side of
 * the messages under test this allocator makes an unreleased received message harmless, while the
 * publisher under test stays exactly the object Sluice hands to users. Everything travelling the
 * other way keeps using the pooled, tracked allocator, so leaks on those paths still fail the test
 * class. Thread-safe and stateless: use {@link #INSTANCE}.
 */
public final class UntrackedHeapAllocator extends AbstractByteBufAllocator {
  /** The one instance. */
  public static final UntrackedHeapAllocator INSTANCE = new UntrackedHeapAllocator();

  private UntrackedHeapAllocator() {
    super(false);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return new CompositeByteBuf(this, false, maxNumComponents);
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return compositeHeapBuffer(maxNumComponents);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }
}
