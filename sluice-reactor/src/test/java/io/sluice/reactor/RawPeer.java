package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The other end of a Sluice connection played with raw RSocket frames, over a plain socket (TCP,
 * u24 length prefix) or a bare local transport (one buffer per frame). Frames it receives are kept
 * as decoded copies, so tests hold no buffers.
 *
 * <p>A connection that ends inside a frame (its length prefix promised more bytes than came), or a
 * frame that cannot be decoded, is an error, not a close: {@link #closed} completes exceptionally
 * with it, {@link #next()} and {@link #assertClosed()} throw it, and so does {@link #close()}, so
 * a test that never looks again still fails.
 */
abstract class RawPeer implements AutoCloseable {
  static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  /** A decoded copy of one received frame. */
  record Frame(int streamId, int type, int flags, int n, int errorCode, String errorMessage, byte[] data) {
    boolean has(int flag) {
      return (flags & flag) != 0;
    }

    String dataUtf8() {
      return new String(data, StandardCharsets.UTF_8);
    }

    static Frame of(ByteBuf f) {
      int type = Frames.type(f);
      int n = 0;
      int code = 0;
      String message = null;
      byte[] data = new byte[0];
      switch (type) {
        case FrameType.ERROR:
          code = Frames.errorCode(f);
          message = Frames.errorMessage(f);
          break;
        case FrameType.REQUEST_N:
          n = Frames.requestN(f);
          break;
        case FrameType.KEEPALIVE:
          data = ByteBufUtil.getBytes(Frames.keepAliveData(f));
          break;
        case FrameType.PAYLOAD:
        case FrameType.REQUEST_RESPONSE:
        case FrameType.REQUEST_FNF:
        case FrameType.REQUEST_STREAM:
        case FrameType.REQUEST_CHANNEL:
          data = ByteBufUtil.getBytes(Frames.data(f));
          if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
            n = Frames.initialRequestN(f);
          }
          break;
        case FrameType.SETUP:
          n = Setup.keepAliveInterval(f);
          break;
        default:
          break;
      }
      return new Frame(Frames.streamId(f), type, Frames.flags(f), n, code, message, data);
    }

    @Override
    public String toString() {
      return FrameType.name(type)
          + "{stream="
          + streamId
          + ", flags=0x"
          + Integer.toHexString(flags)
          + (type == FrameType.ERROR ? ", " + ErrorCode.name(errorCode) + ": " + errorMessage : "")
          + "}";
    }
  }

  /** Queued after the last frame when the connection broke: {@link #next()} throws the failure. */
  private static final Frame BROKEN = new Frame(0, 0, 0, 0, 0, null, new byte[0]);

  final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  /** Bytes of the frames received so far. */
  final AtomicLong receivedBytes = new AtomicLong();
  private volatile Throwable failure;

  /**
   * The connection broke (ended mid-frame, or a frame could not be decoded): recorded, {@link
   * #closed} fails with it, and {@link #next()} throws it once the frames before it are taken.
   */
  final void broken(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    closed.completeExceptionally(cause);
    received.add(BROKEN);
  }

  /** How the connection broke, or null while it is intact or ended cleanly. */
  Throwable failure() {
    return failure;
  }

  /** Decodes and queues one received frame; one that cannot be decoded breaks the connection. */
  final void receive(ByteBuf frame) {
    receivedBytes.addAndGet(frame.readableBytes());
    Frame f;
    try {
      f = Frame.of(frame);
    } catch (Throwable t) {
      broken(new AssertionError("undecodable frame of " + frame.readableBytes() + " bytes", t));
      return;
    }
    received.add(f);
  }

  /** Throws the failure if the connection broke. */
  final void assertNotBroken() {
    Throwable t = failure;
    if (t != null) {
      throw new AssertionError("the connection broke: " + t.getMessage(), t);
    }
  }

  /** Sends one frame; takes ownership of it. */
  abstract void send(ByteBuf frame);

  /** Sends raw bytes as they are (TCP: no prefix added); takes ownership. */
  abstract void sendRaw(ByteBuf bytes);

  /** Stops or resumes reading from the connection (a peer that never reads). */
  abstract void reading(boolean on);

  @Override
  public abstract void close();

  Frame next() {
    try {
      Frame f = received.poll(Harness.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(f).as("a frame within %s", Harness.TIMEOUT).isNotNull();
      if (f == BROKEN) {
        received.add(BROKEN); // and for every later call
        assertNotBroken();
      }
      return f;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  Frame next(int type) {
    Frame f = next();
    assertThat(FrameType.name(f.type())).as("type of %s", f).isEqualTo(FrameType.name(type));
    return f;
  }

  /** The next frame that is not a KEEPALIVE. */
  Frame nextSkippingKeepAlives() {
    for (; ; ) {
      Frame f = next();
      if (f.type() != FrameType.KEEPALIVE) {
        return f;
      }
    }
  }

  /** Asserts the other side closed the connection (within the timeout). */
  void assertClosed() {
    try {
      closed.get(Harness.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      assertNotBroken();
      throw new AssertionError(e.getCause());
    } catch (Exception e) {
      throw new AssertionError("the connection was not closed", e);
    }
  }

  // ---- frames ----------------------------------------------------------------------------------

  static ByteBuf setup(int major, int flags, int keepAlive, int lifetime) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeHeader(out, 0, FrameType.SETUP, flags);
    out.writeShort(major);
    out.writeShort(0);
    out.writeInt(keepAlive);
    out.writeInt(lifetime);
    if ((flags & Frames.FLAG_SETUP_RESUME) != 0) {
      out.writeShort(4);
      out.writeInt(0x01020304);
    }
    for (int i = 0; i < 2; i++) {
      out.writeByte(18);
      out.writeBytes("application/binary".getBytes(StandardCharsets.US_ASCII));
    }
    return out;
  }

  static ByteBuf setup() {
    return setup(1, 0, 20_000, 90_000);
  }

  static ByteBuf request(int streamId, int type, int n, String data) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeRequestHeader(out, streamId, type, 0, n);
    out.writeBytes(data.getBytes(StandardCharsets.UTF_8));
    return out;
  }

  static ByteBuf keepAlive(boolean respond, String data) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeKeepAlive(out, respond, 0, null);
    out.writeBytes(data.getBytes(StandardCharsets.UTF_8));
    return out;
  }

  static ByteBuf cancel(int streamId) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeCancel(out, streamId);
    return out;
  }

  static ByteBuf requestN(int streamId, int n) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeRequestN(out, streamId, n);
    return out;
  }

  static ByteBuf resume() {
    ByteBuf out = ALLOC.buffer();
    ByteBuf token = ALLOC.buffer().writeInt(42);
    Frames.writeResume(out, token, 0, 0);
    token.release();
    return out;
  }

  // ---- over TCP ----------------------------------------------------------------------------------

  /** A raw peer on a plain socket. */
  static final class Tcp extends RawPeer {
    private final Socket socket;
    private final OutputStream out;
    private final Object readGate = new Object();
    private boolean readOn = true;
    private volatile boolean closing;

    Tcp(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      this.out = socket.getOutputStream();
      Thread reader = new Thread(this::readLoop, "raw-tcp-peer");
      reader.setDaemon(true);
      reader.start();
    }

    static Tcp connect(InetSocketAddress address) {
      try {
        Socket s = new Socket();
        // A small receive buffer, so a peer that stops reading fills it quickly.
        s.setReceiveBufferSize(16 * 1024);
        s.connect(new InetSocketAddress("127.0.0.1", address.getPort()), 5000);
        return new Tcp(s);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    /**
     * Reads u24-prefixed frames until the connection ends. An end at a frame boundary (EOF, or a
     * reset before the next frame began) is a close; an end inside a frame, or anything else
     * going wrong while the test has not closed the socket itself, breaks the connection.
     */
    private void readLoop() {
      int length = -1;
      int got = 0;
      try {
        InputStream in = socket.getInputStream();
        for (; ; ) {
          synchronized (readGate) {
            while (!readOn) {
              readGate.wait();
            }
          }
          length = -1;
          got = 0;
          int b0 = in.read();
          if (b0 < 0) {
            break;
          }
          got = 1;
          int b1 = in.read();
          if (b1 < 0) {
            throw new EOFException();
          }
          got = 2;
          int b2 = in.read();
          if (b2 < 0) {
            throw new EOFException();
          }
          length = (b0 << 16) | (b1 << 8) | b2;
          got = 0;
          byte[] frame = new byte[length];
          while (got < length) {
            int n = in.read(frame, got, length - got);
            if (n < 0) {
              throw new EOFException();
            }
            got += n;
          }
          ByteBuf f = ALLOC.heapBuffer(length).writeBytes(frame);
          try {
            receive(f);
          } finally {
            f.release();
          }
        }
      } catch (EOFException | java.net.SocketException e) {
        boolean atBoundary = length < 0 && got == 0;
        if (!closing && !atBoundary) {
          broken(
              new AssertionError(
                  "the connection ended inside a frame: "
                      + (length < 0
                          ? "after " + got + " of the 3 length-prefix bytes"
                          : "after " + got + " of " + length + " bytes"),
                  e));
        }
      } catch (Throwable e) {
        if (!closing) {
          broken(new AssertionError("reading from the connection failed", e));
        }
      } finally {
        closed.complete(null); // a no-op when broken() failed it
      }
    }

    @Override
    void send(ByteBuf frame) {
      try {
        byte[] bytes = ByteBufUtil.getBytes(frame);
        byte[] prefixed = new byte[bytes.length + 3];
        prefixed[0] = (byte) (bytes.length >>> 16);
        prefixed[1] = (byte) (bytes.length >>> 8);
        prefixed[2] = (byte) bytes.length;
        System.arraycopy(bytes, 0, prefixed, 3, bytes.length);
        out.write(prefixed);
        out.flush();
      } catch (IOException e) {
        throw new AssertionError(e);
      } finally {
        frame.release();
      }
    }

    @Override
    void sendRaw(ByteBuf bytes) {
      try {
        out.write(ByteBufUtil.getBytes(bytes));
        out.flush();
      } catch (IOException e) {
        // the server may already have closed: fine for tests that expect that
      } finally {
        bytes.release();
      }
    }

    @Override
    void reading(boolean on) {
      synchronized (readGate) {
        readOn = on;
        readGate.notifyAll();
      }
    }

    @Override
    public void close() {
      closing = true;
      reading(true);
      try {
        socket.close();
      } catch (IOException e) {
        // ignore
      }
      assertNotBroken();
    }
  }

  /** Accepts one client connection on a plain server socket. */
  static final class TcpServer implements AutoCloseable {
    final ServerSocket server;

    TcpServer() {
      try {
        server = new ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    int port() {
      return server.getLocalPort();
    }

    Tcp accept() {
      try {
        server.setSoTimeout((int) Harness.TIMEOUT.toMillis());
        return new Tcp(server.accept());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException e) {
        // ignore
      }
    }
  }

  // ---- over the local transport ----------------------------------------------------------------

  /** A raw peer on a bare local transport: frames cross as buffers, no prefix. */
  static final class Local extends RawPeer implements FrameReceiver {
    private final DuplexTransport transport;

    Local(DuplexTransport transport) {
      this.transport = transport;
      transport.executor().execute(() -> transport.start(this));
    }

    static Local connect(ClientTransport client) {
      try {
        return new Local(client.connect().get(Harness.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    @Override
    void send(ByteBuf frame) {
      transport.executor().execute(() -> {
        transport.write(frame);
        transport.flush();
      });
    }

    @Override
    void sendRaw(ByteBuf bytes) {
      send(bytes);
    }

    @Override
    void reading(boolean on) {
      transport.executor().execute(() -> transport.setReadEnabled(on));
    }

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
      receive(frame);
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
      closed.complete(null);
    }

    @Override
    public void close() {
      transport.executor().execute(transport::close);
      assertNotBroken();
    }
  }

  /** A local server whose connections are handed to the test raw. */
  static final class LocalServer implements AutoCloseable {
    final String name = "raw-local-" + System.nanoTime();
    final BlockingQueue<DuplexTransport> accepted = new LinkedBlockingQueue<>();
    final ServerTransport.Bound bound;

    LocalServer() {
      this(null);
    }

    /** On {@code loop} (null: the local transport's default loops). */
    LocalServer(io.netty.util.concurrent.EventExecutorGroup loop) {
      try {
        ServerTransport server =
            loop == null ? LocalTransport.server(name) : LocalTransport.server(name, loop, ALLOC);
        bound = server.bind(accepted::add).get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    Local accept() {
      try {
        DuplexTransport t = accepted.poll(Harness.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(t).as("a connection").isNotNull();
        return new Local(t);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public void close() {
      bound.close();
    }
  }
}
