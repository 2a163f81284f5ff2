package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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

/**
 * The other end of a Sluice connection, played frame by frame: frames go out as bytes built by
 * sluice-test-support's {@link FrameBuilder}, frames come back as {@link WireFrame}s decoded here.
 * Over TCP it is a plain socket that writes and reads the u24 length prefix itself; over the local
 * transport it is a bare {@link DuplexTransport} (one buffer per frame, no prefix).
 *
 * <p>Every frame Sluice sends is checked against the send-side rules that hold for any frame
 * ({@link #violations()}); the suite's base class fails a test that saw a violation.
 *
 * <p><b>Broken connections.</b> A connection that ends inside a frame (its length prefix promised
 * more bytes than came), or a frame that cannot be decoded, is an error, not a close: {@link
 * #closed} completes exceptionally with it, {@link #next()} and {@link #assertClosed()} throw it,
 * and the suite's base class fails the test ({@link #failure()}).
 *
 * <p><b>Fences.</b> A rule like "X is ignored" is checked without sleeping: after X the peer sends
 * a KEEPALIVE with R=1 and unique data and reads until the echo (rule 21). Sluice handles a
 * connection's frames in order, so anything X caused arrives before the echo.
 */
abstract class RawPeer implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** Queued after the last frame when the connection broke: {@link #next()} throws the failure. */
  private static final WireFrame BROKEN = new WireFrame(new byte[WireFrame.HEADER]);

  private final BlockingQueue<WireFrame> received = new LinkedBlockingQueue<>();
  private final List<WireFrame> all = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  private int fences;
  private volatile Throwable failure;

  /** Sends one frame (the peer adds the u24 prefix on TCP). */
  abstract void sendBytes(byte[] frame);

  /** Sends one frame from a builder. */
  final void send(FrameBuilder.Builder<?> frame) {
    sendBytes(frame.toBytes());
  }

  /** Whether this peer speaks over a byte stream with u24 length prefixes. */
  abstract boolean lengthPrefixed();

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

  final void onFrame(byte[] bytes) {
    WireFrame f;
    try {
      f = new WireFrame(bytes);
    } catch (Throwable t) {
      broken(new AssertionError("undecodable frame of " + bytes.length + " bytes from Sluice", t));
      return;
    }
    List<String> broken = SendRules.check(f);
    synchronized (this) {
      all.add(f);
      for (String b : broken) {
        violations.add(f + ": " + b);
      }
    }
    received.add(f);
  }

  /** Send-side rule violations seen so far in frames received from Sluice. */
  synchronized List<String> violations() {
    return new ArrayList<>(violations);
  }

  /** Every frame received so far, in order. */
  synchronized List<WireFrame> all() {
    return new ArrayList<>(all);
  }

  WireFrame next() {
    try {
      WireFrame f = received.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(f).as("a frame from Sluice within %s", TIMEOUT).isNotNull();
      if (f == BROKEN) {
        received.add(BROKEN); // and for every later call
        throw new AssertionError("the connection broke: " + failure.getMessage(), failure);
      }
      return f;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next frame that is not a KEEPALIVE with R=1 (a client's periodic keepalive). */
  WireFrame nextSkippingKeepAlives() {
    for (; ; ) {
      WireFrame f = next();
      if (!(f.type() == WireFrame.KEEPALIVE && f.has(WireFrame.KEEPALIVE_R))) {
        return f;
      }
    }
  }

  WireFrame next(int type) {
    WireFrame f = nextSkippingKeepAlives();
    assertThat(WireFrame.name(f.type())).as("type of %s", f).isEqualTo(WireFrame.name(type));
    return f;
  }

  /**
   * Sends a KEEPALIVE R=1 fence and returns every frame that arrived before its echo, leaving out
   * periodic client KEEPALIVEs.
   */
  List<WireFrame> fence() {
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
  void assertQuiet() {
    assertThat(fence()).as("frames Sluice sent instead of ignoring").isEmpty();
  }

  /** Asserts that Sluice closed the connection. */
  void assertClosed() {
    try {
      closed.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the connection broke: " + e.getCause().getMessage(), e.getCause());
    } catch (Exception e) {
      throw new AssertionError("Sluice did not close the connection", e);
    }
  }

  /** The next frame is ERROR[code] on stream 0, then the connection closes. */
  WireFrame assertConnectionErrorAndClose(int code) {
    WireFrame f = next(WireFrame.ERROR);
    assertThat(f.streamId()).as("stream of %s", f).isZero();
    assertThat(f.errorCode()).as("code of %s", f).isEqualTo(code);
    assertClosed();
    return f;
  }

  // ---- TCP ---------------------------------------------------------------------------------------

  /** A plain socket that writes and reads u24 length-prefixed frames by hand. */
  static final class Tcp extends RawPeer {
    private final Socket socket;
    private final OutputStream out;
    private volatile boolean closing;

    Tcp(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(0);
      this.out = socket.getOutputStream();
      Thread reader = new Thread(this::readLoop, "conformance-raw-tcp");
      reader.setDaemon(true);
      reader.start();
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
          onFrame(frame);
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
        closed.complete(null); // a no-op when broken() failed it
      }
    }

    @Override
    boolean lengthPrefixed() {
      return true;
    }

    @Override
    void sendBytes(byte[] frame) {
      sendRaw(FrameBuilder.lengthPrefixed(frame));
    }

    /** Writes bytes as they are, without adding a prefix. */
    void sendRaw(byte[] bytes) {
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
    public void close() {
      closing = true;
      try {
        socket.close();
      } catch (IOException e) {
        // ignore
      }
    }
  }

  // ---- local transport -------------------------------------------------------------------------

  /** A bare local transport: one buffer per frame, no prefix. */
  static final class Local extends RawPeer implements FrameReceiver {
    private final DuplexTransport transport;

    Local(DuplexTransport transport) {
      this.transport = transport;
      transport.executor().execute(() -> transport.start(this));
    }

    @Override
    boolean lengthPrefixed() {
      return false;
    }

    @Override
    void sendBytes(byte[] frame) {
      transport
          .executor()
          .execute(
              () -> {
                ByteBuf buf = transport.alloc().buffer(frame.length).writeBytes(frame);
                transport.write(buf);
                transport.flush();
              });
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
      byte[] bytes = new byte[frame.readableBytes()];
      frame.getBytes(frame.readerIndex(), bytes);
      onFrame(bytes);
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
    }
  }
}
