package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * A transport on one event loop seen from another: a resumed session stays on the loop it was made
 * on (its engine's timers and state live there), and the transport a client reconnects with, or a
 * server accepts a RESUME on, may belong to another loop. Frames cross once per read batch (retained
 * slices, no copy), writes once per flush; writability and progress are read from a snapshot.
 */
final class LoopBridge implements DuplexTransport {
  private final DuplexTransport phys;
  private final EventExecutor home;
  private final EventExecutor theirs;
  private final Far far = new Far();
  private FrameReceiver receiver;
  private List<ByteBuf> pendingOut = new ArrayList<>();
  private volatile boolean writable = true;
  private volatile long progress = -1;

  LoopBridge(DuplexTransport phys, EventExecutor home) {
    this.phys = phys;
    this.home = home;
    this.theirs = phys.executor();
  }

  @Override
  public Framing framing() {
    return phys.framing();
  }

  @Override
  public FramePrefix framePrefix() {
    return phys.framePrefix();
  }

  @Override
  public EventExecutor executor() {
    return home;
  }

  @Override
  public ByteBufAllocator alloc() {
    return phys.alloc();
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
    run(
        () -> {
          writable = phys.isWritable();
          phys.start(far);
        });
  }

  @Override
  public void write(ByteBuf buf) {
    pendingOut.add(buf);
  }

  @Override
  public void flush() {
    if (pendingOut.isEmpty()) {
      return;
    }
    List<ByteBuf> out = pendingOut;
    pendingOut = new ArrayList<>();
    try {
      theirs.execute(
          () -> {
            for (ByteBuf b : out) {
              phys.write(b);
            }
            phys.flush();
            writable = phys.isWritable();
            progress = phys.outboundProgress();
          });
    } catch (RejectedExecutionException e) {
      out.forEach(ByteBuf::release);
    }
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public long outboundProgress() {
    return progress;
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    run(() -> phys.setReadEnabled(enabled));
  }

  @Override
  public void close() {
    flush();
    run(phys::close);
  }

  @Override
  public SocketAddress remoteAddress() {
    return phys.remoteAddress();
  }

  @Override
  public String name() {
    return phys.name();
  }

  @Override
  public boolean supportsResumption() {
    return phys.supportsResumption();
  }

  private void run(Runnable task) {
    try {
      theirs.execute(task);
    } catch (RejectedExecutionException e) {
      home.execute(receiver::onClosed);
    }
  }

  private void home(Runnable task) {
    try {
      home.execute(task);
    } catch (RejectedExecutionException e) {
      // the session's loop is gone; its engine was closed with it
    }
  }

  /** The receiver on the transport's own loop. */
  private final class Far implements FrameReceiver {
    private List<ByteBuf> in = new ArrayList<>();

    @Override
    public int maxFrameSize() {
      return receiver.maxFrameSize();
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return receiver.maxQueuedOutboundBytes();
    }

    @Override
    public void onFrame(ByteBuf frame) {
      in.add(frame.retainedSlice());
    }

    @Override
    public void onReadComplete() {
      deliver(true);
    }

    private void deliver(boolean readComplete) {
      if (in.isEmpty() && !readComplete) {
        return;
      }
      List<ByteBuf> batch = in;
      in = new ArrayList<>();
      try {
        home.execute(
            () -> {
              for (int i = 0; i < batch.size(); i++) {
                ByteBuf f = batch.get(i);
                try {
                  receiver.onFrame(f);
                } finally {
                  f.release();
                }
              }
              if (readComplete) {
                receiver.onReadComplete();
              }
            });
      } catch (RejectedExecutionException e) {
        batch.forEach(ByteBuf::release);
      }
    }

    @Override
    public void onWritabilityChanged(boolean w) {
      writable = w;
      home(() -> receiver.onWritabilityChanged(w));
    }

    @Override
    public void onTransportError(Throwable cause) {
      deliver(false);
      home(() -> receiver.onTransportError(cause));
    }

    @Override
    public void onClosed() {
      deliver(false);
      home(receiver::onClosed);
    }
  }
}
