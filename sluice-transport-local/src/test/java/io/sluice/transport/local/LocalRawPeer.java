package io.sluice.transport.local;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.test.RawPeer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * sluice-test-support's {@link RawPeer} on a bare local transport: frames cross as buffers, one
 * per frame, no length prefix. It lives here, in this module's test jar, because sluice-test-support
 * cannot depend on sluice-core (whose tests depend on sluice-test-support); all the peer's logic is
 * in {@link RawPeer}, this class only moves bytes.
 */
public final class LocalRawPeer extends RawPeer implements FrameReceiver {
  private final DuplexTransport transport;

  /** Takes over a transport that has not been started. */
  public LocalRawPeer(DuplexTransport transport) {
    this.transport = transport;
    transport.executor().execute(() -> transport.start(this));
  }

  /** Connects through {@code client} (a local client transport). */
  public static LocalRawPeer connect(ClientTransport client) {
    return new LocalRawPeer(await(client.connect()));
  }

  @Override
  public boolean lengthPrefixed() {
    return false;
  }

  @Override
  public void sendBytes(byte[] frame) {
    transport
        .executor()
        .execute(
            () -> {
              transport.write(transport.alloc().buffer(frame.length).writeBytes(frame));
              transport.flush();
            });
  }

  /** There is no byte stream to split frames in: the bytes go as one frame. */
  @Override
  public void sendRaw(byte[] bytes) {
    sendBytes(bytes);
  }

  @Override
  public void reading(boolean on) {
    transport.executor().execute(() -> transport.setReadEnabled(on));
  }

  @Override
  protected void disconnect() {
    transport.executor().execute(transport::close);
  }

  // ---- FrameReceiver, on the transport's executor ----------------------------------------------

  @Override
  public int maxFrameSize() {
    return 0xFFFFFF;
  }

  @Override
  public int maxQueuedOutboundBytes() {
    return 64 * 1024 * 1024;
  }

  @Override
  public void onFrame(ByteBuf frame) {
    byte[] bytes = new byte[frame.readableBytes()];
    frame.getBytes(frame.readerIndex(), bytes);
    frameReceived(bytes);
  }

  @Override
  public void onReadComplete() {}

  @Override
  public void onWritabilityChanged(boolean writable) {}

  @Override
  public void onTransportError(Throwable cause) {
    broken(new AssertionError("the local transport failed", cause));
  }

  @Override
  public void onClosed() {
    ended();
  }

  static <T> T await(java.util.concurrent.Future<T> f) {
    try {
      return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** A local server whose connections are handed to the test as raw peers. */
  public static final class Server implements AutoCloseable {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final String name = "raw-local-" + NAMES.incrementAndGet();
    private final BlockingQueue<DuplexTransport> accepted = new LinkedBlockingQueue<>();
    private final ServerTransport.Bound bound;
    private final EventExecutorGroup loops;
    private final ByteBufAllocator alloc;

    public Server() {
      this(null, null);
    }

    /**
     * Both ends of every connection on {@code loops} with {@code alloc} (a test's {@code
     * ManualClockLoop}, say); null: the local transport's defaults.
     */
    public Server(EventExecutorGroup loops, ByteBufAllocator alloc) {
      this.loops = loops;
      this.alloc = alloc;
      bound =
          await(
              (loops == null
                      ? LocalTransport.server(name)
                      : LocalTransport.server(name, loops, alloc))
                  .bind(accepted::add));
    }

    /** A client transport that connects to this server. */
    public ClientTransport clientTransport() {
      return loops == null ? LocalTransport.client(name) : LocalTransport.client(name, loops, alloc);
    }

    /** The next connection (waiting up to {@link RawPeer#TIMEOUT}). */
    public LocalRawPeer accept() {
      DuplexTransport t;
      try {
        t = accepted.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      if (t == null) {
        throw new AssertionError("no connection within " + TIMEOUT);
      }
      return new LocalRawPeer(t);
    }

    @Override
    public void close() {
      bound.close();
    }
  }
}
