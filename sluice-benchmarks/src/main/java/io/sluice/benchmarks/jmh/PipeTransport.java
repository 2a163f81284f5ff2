package io.sluice.benchmarks.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.ArrayDeque;

/**
 * One end of an in-memory, length-prefixed pipe between two engines on one event loop: a flush
 * hands the written batches to the peer in a later loop task, split into frames by their u24
 * prefixes and followed by one {@code onReadComplete}, as a socket read would. No socket, no
 * pipeline: what remains is the engine's own cost per message.
 */
final class PipeTransport implements DuplexTransport {
  private final EventExecutor loop;
  private final ArrayDeque<ByteBuf> unflushed = new ArrayDeque<>();
  private final ArrayDeque<ByteBuf> inFlight = new ArrayDeque<>();
  private final Runnable deliver = this::deliver;
  private boolean deliveryScheduled;
  private FrameReceiver receiver;
  PipeTransport peer;

  PipeTransport(EventExecutor loop) {
    this.loop = loop;
  }

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
    return PooledByteBufAllocator.DEFAULT;
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
  }

  @Override
  public void write(ByteBuf buf) {
    unflushed.add(buf);
  }

  @Override
  public void flush() {
    if (unflushed.isEmpty()) {
      return;
    }
    peer.inFlight.addAll(unflushed);
    unflushed.clear();
    if (!peer.deliveryScheduled) {
      peer.deliveryScheduled = true;
      loop.execute(peer.deliver);
    }
  }

  private void deliver() {
    deliveryScheduled = false;
    ByteBuf b;
    while ((b = inFlight.poll()) != null) {
      try {
        while (b.isReadable()) {
          // Lends the batch narrowed to each frame, as the TCP transport lends its read buffer.
          int length = b.readUnsignedMedium();
          int start = b.readerIndex();
          int writerIndex = b.writerIndex();
          b.setIndex(start, start + length);
          receiver.onFrame(b);
          b.setIndex(start + length, writerIndex);
        }
      } finally {
        b.release();
      }
    }
    receiver.onReadComplete();
  }

  @Override
  public boolean isWritable() {
    return true;
  }

  @Override
  public void setReadEnabled(boolean enabled) {}

  @Override
  public void close() {
    unflushed.forEach(ByteBuf::release);
    unflushed.clear();
    inFlight.forEach(ByteBuf::release);
    inFlight.clear();
    if (receiver != null) {
      FrameReceiver r = receiver;
      receiver = null;
      r.onClosed();
    }
  }

  @Override
  public SocketAddress remoteAddress() {
    return null;
  }
}
