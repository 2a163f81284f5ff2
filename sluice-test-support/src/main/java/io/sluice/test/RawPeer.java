package io.sluice.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The other end of a Sluice connection, played frame by frame: frames go out as bytes built by
 * {@link FrameBuilder}, frames come back as {@link WireFrame}s decoded from the bytes. Neither side
 * uses sluice-core's codecs, so a wire test checks the core against a second implementation.
 *
 * <p>{@link Tcp} is a plain socket that writes and reads the u24 length prefix itself. A peer on
 * another transport (sluice-transport-local's test jar has one: one buffer per frame, no prefix)
 * extends this class and reports what arrives with {@link #frameReceived}, {@link #ended} and
 * {@link #broken}.
 *
 * <p><b>Broken connections.</b> A connection that ends inside a frame (its length prefix promised
 * more bytes than came), or a frame that cannot be decoded, is an error, not a close: {@link
 * #closed()} completes exceptionally with it, {@link #next()} and {@link #assertClosed()} throw it,
 * and so does {@link #close()}, so a test that never looks again still fails.
 *
 * <p><b>Fences.</b> A rule like "X is ignored" is checked without sleeping: after X the peer sends
 * a KEEPALIVE with R=1 and unique data and reads until the echo ({@link #fence()}). Sluice handles
 * a connection's frames in order, so anything X caused arrives before the echo.
 *
 * <p><b>Threads.</b> The transport side reports arrivals on its own thread ({@link Tcp} reads on a
 * daemon thread of its own); frames wait in a thread-safe queue for the test's thread, which takes
 * them. A {@link Tcp} peer's writes are serialized, so they may come from any thread.
 * <b>Buffers.</b> Holds none: frames travel as byte arrays.
 */
public abstract class RawPeer implements AutoCloseable {
  /** How long {@link #next()} and {@link #assertClosed()} wait. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** Queued after the last frame when the connection broke: {@link #next()} throws the failure. */
  private static final WireFrame BROKEN = new WireFrame(new byte[WireFrame.HEADER]);

  private final BlockingQueue<WireFrame> received = new LinkedBlockingQueue<>();
  private final List<WireFrame> all = new ArrayList<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final AtomicLong receivedBytes = new AtomicLong();
  private int fences;
  private volatile Throwable failure;

  protected RawPeer() {}

  // ---- sending ---------------------------------------------------------------------------------

  /** Sends one frame (the peer adds the u24 prefix where the transport needs one). */
  public abstract void sendBytes(byte[] frame);

  /** Sends one frame from a builder. */
  public final void send(FrameBuilder.Builder<?> frame) {
    sendBytes(frame.toBytes());
  }

  /**
   * Writes bytes as they are: on TCP without adding a prefix (so a test can split or merge frames
   * as it likes), elsewhere as one frame. A failure to write (the other side closed) is ignored;
   * tests that expect a close check it themselves.
   */
  public abstract void sendRaw(byte[] bytes);

  /** Whether this peer speaks over a byte stream with u24 length prefixes. */
  public abstract boolean lengthPrefixed();

  /** Stops or resumes reading from the connection (a peer that never reads). */
  public abstract void reading(boolean on);

  /** Closes the connection itself; what {@link #close()} does before checking it was not broken. */
  protected abstract void disconnect();

  /** Closes the connection, then throws if it had broken. */
  @Override
  public final void close() {
    disconnect();
    assertNotBroken();
  }

  // ---- receiving: called by the transport side ------------------------------------------------

  /** One whole frame arrived (without prefix); a frame that cannot be decoded breaks the peer. */
  protected final void frameReceived(byte[] bytes) {
    receivedBytes.addAndGet(bytes.length);
    WireFrame f;
    try {
      f = new WireFrame(bytes);
    } catch (Throwable t) {
      broken(new AssertionError("undecodable frame of " + bytes.length + " bytes from Sluice", t));
      return;
    }
    synchronized (this) {
      all.add(f);
    }
    received.add(f);
  }

  /** The connection ended cleanly (a no-op once it broke). */
  protected final void ended() {
    closed.complete(null);
  }

  /**
   * The connection broke (ended mid-frame, or a frame could not be decoded): recorded, {@link
   * #closed()} fails with it, and {@link #next()} throws it once the frames before it are taken.
   */
  protected final void broken(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    closed.completeExceptionally(cause);
    received.add(BROKEN);
  }

  // ---- what arrived --------------------------------------------------------------------------

  /** Completes when the connection ends; exceptionally when it broke. */
  public final CompletableFuture<Void> closed() {
    return closed;
  }

  /** How the connection broke, or null while it is intact or ended cleanly. */
  public final Throwable failure() {
    return failure;
  }

  /** Throws the failure if the connection broke. */
  public final void assertNotBroken() {
    Throwable t = failure;
    if (t != null) {
      throw new AssertionError("the connection broke: " + t.getMessage(), t);
    }
  }

  /** Every frame received so far, in order. */
  public final synchronized List<WireFrame> all() {
    return new ArrayList<>(all);
  }

  /** Frames received and not taken by {@link #next()} yet. */
  public final int pending() {
    return received.size();
  }

  /** Bytes of the frames received so far (prefixes not counted). */
  public final long receivedBytes() {
    return receivedBytes.get();
  }

  /** The next frame, waiting up to {@link #TIMEOUT}. */
  public final WireFrame next() {
    try {
      WireFrame f = received.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(f, "a frame from Sluice within " + TIMEOUT);
      if (f == BROKEN) {
        received.add(BROKEN); // and for every later call
        assertNotBroken();
      }
      return f;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next frame that is not a KEEPALIVE with R=1 (a client's periodic keepalive). */
  public final WireFrame nextSkippingKeepAlives() {
    for (; ; ) {
      WireFrame f = next();
      if (!(f.type() == WireFrame.KEEPALIVE && f.has(WireFrame.KEEPALIVE_R))) {
        return f;
      }
    }
  }

  /** The next frame, skipping periodic keepalives, which must be of {@code type}. */
  public final WireFrame next(int type) {
    WireFrame f = nextSkippingKeepAlives();
    assertEquals(WireFrame.name(type), WireFrame.name(f.type()), "type of " + f);
    return f;
  }

  /**
   * Sends a KEEPALIVE R=1 fence and returns every frame that arrived before its echo, leaving out
   * periodic client KEEPALIVEs.
   */
  public final List<WireFrame> fence() {
    byte[] token = ("fence-" + (++fences)).getBytes(StandardCharsets.US_ASCII);
    send(FrameBuilder.keepAlive(true, 0, token));
    List<WireFrame> before = new ArrayList<>();
    for (; ; ) {
      WireFrame f = next();
      if (f.type() == WireFrame.KEEPALIVE) {
        if (!f.has(WireFrame.KEEPALIVE_R) && Arrays.equals(f.keepAliveData(), token)) {
          return before;
        }
        if (f.has(WireFrame.KEEPALIVE_R)) {
          continue;
        }
      }
      before.add(f);
    }
  }

  /** Asserts that nothing but the fence's echo comes back: the connection is open and quiet. */
  public final void assertQuiet() {
    List<WireFrame> before = fence();
    assertTrue(before.isEmpty(), "frames Sluice sent instead of ignoring: " + before);
  }

  /** Asserts that Sluice closed the connection (within {@link #TIMEOUT}), cleanly. */
  public final void assertClosed() {
    try {
      closed.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the connection broke: " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError("Sluice did not close the connection", e);
    }
  }

  /** The next frame is ERROR[code] on stream 0, then the connection closes. */
  public final WireFrame assertConnectionErrorAndClose(int code) {
    WireFrame f = next(WireFrame.ERROR);
    assertEquals(0, f.streamId(), "stream of " + f);
    assertEquals(code, f.errorCode(), "code of " + f);
    assertClosed();
    return f;
  }

  // ---- TCP ---------------------------------------------------------------------------------------

  /** A plain socket that writes and reads u24 length-prefixed frames by hand. */
  public static final class Tcp extends RawPeer {
    private final Socket socket;
    private final OutputStream out;
    private final Object readGate = new Object();
    private boolean readOn = true; // guarded by readGate
    private volatile boolean closing;

    /** Takes over a connected socket and starts reading from it. */
    public Tcp(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(0);
      this.out = socket.getOutputStream();
      Thread reader = new Thread(this::readLoop, "raw-peer-tcp");
      reader.setDaemon(true);
      reader.start();
    }

    /** Connects to 127.0.0.1:{@code port}. */
    public static Tcp connect(int port) {
      return connect(port, 0);
    }

    /**
     * Connects to 127.0.0.1:{@code port}; {@code receiveBuffer} > 0 sets a small socket receive
     * buffer, so a peer that stops reading ({@link #reading}) makes Sluice's socket fill soon.
     */
    public static Tcp connect(int port, int receiveBuffer) {
      try {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
          s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
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
          frameReceived(frame);
        }
      } catch (EOFException | SocketException e) {
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
          broken(new AssertionError("reading from Sluice failed", e));
        }
      } finally {
        ended(); // a no-op when broken() failed it
      }
    }

    @Override
    public boolean lengthPrefixed() {
      return true;
    }

    @Override
    public void sendBytes(byte[] frame) {
      sendRaw(FrameBuilder.lengthPrefixed(frame));
    }

    @Override
    public void sendRaw(byte[] bytes) {
      try {
        synchronized (out) {
          out.write(bytes);
          out.flush();
        }
      } catch (IOException e) {
        // Sluice may already have closed; tests that expect that check it themselves
      }
    }

    @Override
    public void reading(boolean on) {
      synchronized (readGate) {
        readOn = on;
        readGate.notifyAll();
      }
    }

    @Override
    protected void disconnect() {
      closing = true;
      reading(true);
      try {
        socket.close();
      } catch (IOException e) {
        // ignore
      }
    }
  }

  /** A plain server socket on 127.0.0.1 whose connections are handed to the test as raw peers. */
  public static final class TcpServer implements AutoCloseable {
    private final ServerSocket server;

    public TcpServer() {
      try {
        server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        server.setSoTimeout((int) TIMEOUT.toMillis());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }

    public int port() {
      return server.getLocalPort();
    }

    /** The next connection (waiting up to {@link #TIMEOUT}). */
    public Tcp accept() {
      try {
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
}
