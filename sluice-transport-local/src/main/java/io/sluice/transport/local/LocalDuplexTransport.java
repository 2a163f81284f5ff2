package io.sluice.transport.local;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.FrameTooLargeException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One end of an in-JVM connection. Writes are collected until {@link #flush()}, then handed to the
 * peer's loop as one batch of frame buffers. Bytes in flight (written here, not yet consumed by the
 * peer) count against the high water mark, so writability behaves as on a socket.
 */
final class LocalDuplexTransport implements DuplexTransport {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(LocalDuplexTransport.class);

  private final EventExecutor loop;
  private final ByteBufAllocator alloc;
  private final SocketAddress localAddress;
  private final SocketAddress remoteAddress;
  private LocalDuplexTransport peer;

  // Owned by this end's loop.
  private FrameReceiver receiver;
  private List<ByteBuf> pendingWrites = new ArrayList<>();
  private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
  private boolean readEnabled = true;
  private boolean closed;
  /** The peer closed before {@link #start}: report the close once started. */
  private boolean closedByPeerBeforeStart;
  private boolean writable = true;
  private int highWaterMark = 4 * 1024 * 1024;

  /** Bytes this end sent that the peer has not consumed yet; written by both loops. */
  private final AtomicLong inFlight = new AtomicLong();

  LocalDuplexTransport(
      EventExecutor loop, ByteBufAllocator alloc, SocketAddress local, SocketAddress remote) {
    this.loop = loop;
    this.alloc = alloc;
    this.localAddress = local;
    this.remoteAddress = remote;
  }

  static void pair(LocalDuplexTransport a, LocalDuplexTransport b) {
    a.peer = b;
    b.peer = a;
  }

  @Override
  public Framing framing() {
    return Framing.FRAME_PER_WRITE;
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
    this.receiver = receiver;
    this.highWaterMark = receiver.maxQueuedOutboundBytes();
    deliverInbound();
    if (closedByPeerBeforeStart) {
      closeLocally(); // what the peer sent first was delivered above, as a socket reads, then EOF
    }
  }

  /**
   * What one frame costs beyond its bytes (the buffer object, the list slot): counted so that
   * floods of tiny frames hit the water mark too.
   */
  private static final int FRAME_OVERHEAD = 64;

  private static long cost(ByteBuf frame) {
    return frame.readableBytes() + FRAME_OVERHEAD;
  }

  @Override
  public void write(ByteBuf buf) {
    if (closed) {
      buf.release();
      return;
    }
    pendingWrites.add(buf);
    long now = inFlight.addAndGet(cost(buf));
    if (writable && now > highWaterMark) {
      writable = false;
      if (receiver != null) {
        receiver.onWritabilityChanged(false);
      }
    }
  }

  @Override
  public void flush() {
    if (pendingWrites.isEmpty() || closed) {
      return;
    }
    List<ByteBuf> batch = pendingWrites;
    pendingWrites = new ArrayList<>();
    LocalDuplexTransport p = peer;
    p.loop.execute(() -> p.receive(batch, this));
  }

  /** On the peer's loop: frames from {@code sender}. */
  private void receive(List<ByteBuf> batch, LocalDuplexTransport sender) {
    if (closed) {
      long bytes = 0;
      for (ByteBuf b : batch) {
        bytes += cost(b);
        b.release();
      }
      sender.consumed(bytes);
      return;
    }
    inbound.addAll(batch);
    deliverInbound();
  }

  private void deliverInbound() {
    if (receiver == null || closed) {
      return;
    }
    long consumed = 0;
    boolean any = false;
    ByteBuf frame;
    while (readEnabled && !closed && (frame = inbound.poll()) != null) {
      any = true;
      consumed += cost(frame);
      try {
        if (frame.readableBytes() > receiver.maxFrameSize()) {
          receiver.onTransportError(
              new FrameTooLargeException(frame.readableBytes(), receiver.maxFrameSize()));
        } else {
          receiver.onFrame(frame);
        }
      } finally {
        releaseInbound(frame);
      }
    }
    if (consumed > 0) {
      peer.consumedFromOtherLoop(consumed);
    }
    if (any && !closed) {
      receiver.onReadComplete();
    }
  }

  /**
   * Releases a frame the receiver has seen. A receiver (or the application behind it) that
   * released it once too often makes this throw; that bug must not escape into the executor, whose
   * thread would die and take down every local connection sharing it.
   */
  private static void releaseInbound(ByteBuf frame) {
    try {
      frame.release();
    } catch (IllegalReferenceCountException e) {
      logger.warn("An inbound frame was released once too often by its receiver", e);
    }
  }

  /**
   * Called from the peer's loop. The wake-up is decided on the atomic counter alone (crossing the
   * low water mark), never on {@link #writable}, which only this end's loop may read.
   */
  private void consumedFromOtherLoop(long bytes) {
    long low = highWaterMark / 2;
    long before = inFlight.getAndAdd(-bytes);
    if (before > low && before - bytes <= low) {
      loop.execute(this::checkWritable);
    }
  }

  private void consumed(long bytes) {
    consumedFromOtherLoop(bytes);
  }

  private void checkWritable() {
    if (!writable && !closed && inFlight.get() <= highWaterMark / 2) {
      writable = true;
      if (receiver != null) {
        receiver.onWritabilityChanged(true);
      }
    }
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    if (readEnabled == enabled) {
      return;
    }
    readEnabled = enabled;
    if (enabled) {
      loop.execute(this::deliverInbound);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    flush();
    closeLocally();
    LocalDuplexTransport p = peer;
    p.loop.execute(p::closedByPeer);
  }

  /**
   * On this side's loop: the peer closed. Before this side has started, the frames the peer sent
   * first are kept, and {@link #start} delivers them and then reports the close.
   */
  private void closedByPeer() {
    if (receiver == null && !closed) {
      closedByPeerBeforeStart = true;
      return;
    }
    closeLocally();
  }

  private void closeLocally() {
    if (closed) {
      return;
    }
    closed = true;
    for (ByteBuf b : pendingWrites) {
      b.release();
    }
    pendingWrites.clear();
    ByteBuf b;
    while ((b = inbound.poll()) != null) {
      b.release();
    }
    if (receiver != null) {
      receiver.onClosed();
    }
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public SocketAddress remoteAddress() {
    return remoteAddress;
  }

  @Override
  public String toString() {
    return "local " + localAddress + " -> " + remoteAddress;
  }
}
