package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One end of an in-memory pipe between two engines on the same event loop, for tests that run a
 * real client against a real server: each flushed frame reaches the other end in a later loop task,
 * as one read batch. A close reaches both ends in a later task. Every buffer is released.
 */
final class PipeTransport implements DuplexTransport {
  private final EventExecutor loop;
  private final String name;
  private PipeTransport peer;
  private FrameReceiver receiver;
  private final List<ByteBuf> pending = new ArrayList<>();
  private boolean closed;
  /** Each frame written: "LEASE 0" (its requests), "ERROR 0x102" (its code), or the type's name. */
  final List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();

  private PipeTransport(EventExecutor loop, String name) {
    this.loop = loop;
    this.name = name;
  }

  /** Two connected ends: [0] for the server, [1] for the client. */
  static PipeTransport[] pair(EventExecutor loop) {
    PipeTransport server = new PipeTransport(loop, "server end");
    PipeTransport client = new PipeTransport(loop, "client end");
    server.peer = client;
    client.peer = server;
    return new PipeTransport[] {server, client};
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
    return PooledByteBufAllocator.DEFAULT;
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
  }

  @Override
  public void write(ByteBuf buf) {
    if (closed) {
      buf.release();
      return;
    }
    written.add(describe(buf));
    pending.add(buf);
  }

  private static String describe(ByteBuf f) {
    int type = Frames.type(f);
    switch (type) {
      case FrameType.LEASE:
        return "LEASE " + Frames.leaseRequests(f);
      case FrameType.ERROR:
        return "ERROR 0x" + Integer.toHexString(Frames.errorCode(f));
      default:
        return FrameType.name(type);
    }
  }

  @Override
  public void flush() {
    if (pending.isEmpty()) {
      return;
    }
    List<ByteBuf> batch = new ArrayList<>(pending);
    pending.clear();
    loop.execute(() -> peer.read(batch));
  }

  private void read(List<ByteBuf> batch) {
    for (ByteBuf b : batch) {
      try {
        if (!closed && receiver != null) {
          receiver.onFrame(b);
        }
      } finally {
        b.release();
      }
    }
    if (!closed && receiver != null) {
      receiver.onReadComplete();
    }
  }

  @Override
  public boolean isWritable() {
    return true;
  }

  @Override
  public void setReadEnabled(boolean enabled) {}

  @Override
  public void close() {
    if (closed) {
      return;
    }
    flush(); // what was written before the close still reaches the peer, as on a socket
    closed = true;
    loop.execute(
        () -> {
          receiver.onClosed();
          peer.peerClosed();
        });
  }

  private void peerClosed() {
    if (closed) {
      return;
    }
    closed = true;
    pending.forEach(ByteBuf::release);
    pending.clear();
    if (receiver != null) {
      receiver.onClosed();
    }
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved(name, 0);
  }
}
