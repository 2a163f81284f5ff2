package io.sluice.transport.tck;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * A connection of the transport under test, as the engine sees it, with a hand on it for the kit:
 * every call passes through to the real transport, except that the kit can stop the reading (a
 * reader that falls behind), freeze the connection (a peer that neither reads nor answers: what a
 * dead host or a dropped route looks like), and close the real transport under the engine's feet
 * (an abrupt close: no CONNECTION_CLOSE, no ERROR frame). It also records what the transport tells
 * the engine about writability.
 *
 * <p><b>Threads.</b> The {@link DuplexTransport} methods are called by the engine on {@link
 * #executor()}; the control methods may be called from any thread and hop to it. <b>Buffers.</b>
 * Written buffers pass on to the real transport; while the end is frozen they are released here instead.
 */
final class ControlledTransport implements DuplexTransport {
  private final DuplexTransport delegate;

  // Confined to the loop.
  private boolean readEnabledByEngine = true;
  private boolean readStopped;
  /** The engine's output is dropped. */
  private boolean mute;
  /** Nothing more is read, and frames already read are dropped. */
  private boolean deaf;

  /** Counted down each time the real transport reports itself unwritable. */
  private volatile CountDownLatch unwritable = new CountDownLatch(1);

  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  ControlledTransport(DuplexTransport delegate) {
    this.delegate = delegate;
  }

  // ---- control, from any thread ----------------------------------------------------------------

  /** Stops reading from the peer (whatever the engine asks) until {@link #resumeReading()}. */
  CompletableFuture<Void> stopReading() {
    return onLoop(
        () -> {
          readStopped = true;
          delegate.setReadEnabled(false);
        });
  }

  /** Reads again if the engine wants to. */
  CompletableFuture<Void> resumeReading() {
    return onLoop(
        () -> {
          readStopped = false;
          delegate.setReadEnabled(readEnabledByEngine);
        });
  }

  /**
   * From now on the engine's output is dropped, and with {@code deaf} nothing more is read either:
   * to the peer this end falls silent while the connection itself stays open.
   */
  CompletableFuture<Void> freeze(boolean deaf) {
    return onLoop(
        () -> {
          mute = true;
          if (deaf) {
            this.deaf = true;
            readStopped = true;
            delegate.setReadEnabled(false);
          }
        });
  }

  /** Closes the real transport without a word from the engine. */
  CompletableFuture<Void> abort() {
    return onLoop(delegate::close);
  }

  /** A latch counted down the next time the real transport reports itself unwritable. */
  CountDownLatch nextUnwritable() {
    return unwritable;
  }

  /** Completes once the real transport reported that it closed. */
  CompletableFuture<Void> closed() {
    return closed;
  }

  private CompletableFuture<Void> onLoop(Runnable action) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    delegate
        .executor()
        .execute(
            () -> {
              try {
                action.run();
                done.complete(null);
              } catch (Throwable t) {
                done.completeExceptionally(t);
              }
            });
    return done;
  }

  // ---- DuplexTransport ---------------------------------------------------------------------------

  @Override
  public Framing framing() {
    return delegate.framing();
  }

  @Override
  public FramePrefix framePrefix() {
    return delegate.framePrefix();
  }

  @Override
  public EventExecutor executor() {
    return delegate.executor();
  }

  @Override
  public ByteBufAllocator alloc() {
    return delegate.alloc();
  }

  @Override
  public void start(FrameReceiver receiver) {
    delegate.start(new Receiver(receiver));
  }

  @Override
  public void write(ByteBuf buf) {
    if (mute) {
      buf.release();
      return;
    }
    delegate.write(buf);
  }

  @Override
  public void flush() {
    if (!mute) {
      delegate.flush();
    }
  }

  @Override
  public boolean isWritable() {
    return delegate.isWritable();
  }

  @Override
  public long outboundProgress() {
    return delegate.outboundProgress();
  }

  @Override
  public long unsentBytes() {
    return delegate.unsentBytes();
  }

  /** Bytes queued in the real transport, or -1 if it cannot tell; call on the loop. */
  long queuedBytes() {
    return delegate.unsentBytes();
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    readEnabledByEngine = enabled;
    if (!readStopped) {
      delegate.setReadEnabled(enabled);
    }
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public SocketAddress remoteAddress() {
    return delegate.remoteAddress();
  }

  @Override
  public String toString() {
    return "controlled " + delegate;
  }

  /** Passes the transport's callbacks on, noting writability and the close. */
  private final class Receiver implements FrameReceiver {
    private final FrameReceiver engine;

    Receiver(FrameReceiver engine) {
      this.engine = engine;
    }

    @Override
    public int maxFrameSize() {
      return engine.maxFrameSize();
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return engine.maxQueuedOutboundBytes();
    }

    @Override
    public void onFrame(ByteBuf frame) {
      if (!deaf) {
        engine.onFrame(frame);
      }
    }

    @Override
    public void onReadComplete() {
      if (!deaf) {
        engine.onReadComplete();
      }
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
      if (!writable) {
        CountDownLatch l = unwritable;
        unwritable = new CountDownLatch(1);
        l.countDown();
      }
      engine.onWritabilityChanged(writable);
    }

    @Override
    public void onTransportError(Throwable cause) {
      engine.onTransportError(cause);
    }

    @Override
    public void onClosed() {
      closed.complete(null);
      engine.onClosed();
    }
  }
}
