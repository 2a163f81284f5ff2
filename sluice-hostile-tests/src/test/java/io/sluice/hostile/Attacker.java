package io.sluice.hostile;

import io.sluice.test.FrameBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A raw RSocket peer on one TCP connection to 127.0.0.1: writes u24-length-prefixed frames it is
 * given byte for byte, reads only when told to (so it can play a peer that never reads), and keeps
 * the ERROR frames it receives. Non-blocking, so a server that stops reading never blocks it.
 *
 * <p>With {@link #webSocket} set (by a test class running the suite over WebSocket), {@link
 * #connect} also does the HTTP upgrade, the frames given are sent as one masked binary WebSocket
 * message each (see {@link WebSocketWire}), and what arrives is read as WebSocket frames; a close
 * frame counts as the server closing the connection ({@link #closeCode} keeps its code).
 */
final class Attacker implements AutoCloseable {
  /** An ERROR frame received. */
  record Error(int streamId, int code, String message) {
    @Override
    public String toString() {
      return "ERROR[" + io.sluice.ErrorCode.name(code) + "] on " + streamId + ": " + message;
    }
  }

  final SocketChannel ch;
  final int localPort;
  private ByteBuffer pending;
  private final ByteBuffer readBuf = ByteBuffer.allocate(64 * 1024);
  private byte[] acc = new byte[128 * 1024];
  private int accLen;
  final List<Error> errors = new ArrayList<>();
  long framesRead;
  long bytesRead;
  long framesSent;
  /** KEEPALIVE frames received (the answers to KEEPALIVEs with the respond flag). */
  long keepAlivesRead;
  /** Stream ERRORs received beyond the first 20 kept in {@link #errors}. */
  long moreStreamErrors;
  /** Reading saw the server close (EOF) or reset the connection. */
  boolean closed;
  /** A write failed: the server closed the connection. */
  boolean writeFailed;
  /** The code of the WebSocket close frame received, or -1. */
  int closeCode = -1;

  /**
   * Speak WebSocket instead of plain TCP: set by a test class for all its attacks (classes run
   * one at a time), read by {@link #connect}.
   */
  static volatile boolean webSocket;

  private final boolean ws;

  private Attacker(SocketChannel ch) throws IOException {
    this.ch = ch;
    this.localPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
    this.ws = webSocket;
  }

  /**
   * Connects; {@code receiveBuffer} > 0 sets a small socket receive buffer, so a peer that does not
   * read makes the server's socket fill up soon.
   */
  static Attacker connect(int port, int receiveBuffer) throws IOException {
    SocketChannel ch = SocketChannel.open();
    if (receiveBuffer > 0) {
      ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
    }
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    ch.connect(new InetSocketAddress("127.0.0.1", port));
    if (webSocket) {
      WebSocketWire.upgrade(ch);
    }
    ch.configureBlocking(false);
    return new Attacker(ch);
  }

  static Attacker connect(int port) throws IOException {
    return connect(port, 0);
  }

  // ---- frames ------------------------------------------------------------------------------------

  static byte[] prefixed(byte[] frame) {
    return FrameBuilder.lengthPrefixed(frame);
  }

  /** A copy of a length-prefixed frame with another stream id. */
  static byte[] withStreamId(byte[] prefixedFrame, int id) {
    byte[] f = prefixedFrame.clone();
    f[3] = (byte) (id >>> 24 & 0x7F);
    f[4] = (byte) (id >>> 16);
    f[5] = (byte) (id >>> 8);
    f[6] = (byte) id;
    return f;
  }

  static byte[] setupFrame(int keepAliveMillis, int lifetimeMillis) {
    return FrameBuilder.setup().keepAlive(keepAliveMillis).lifetime(lifetimeMillis).toBytes();
  }

  /** Sends SETUP (20 s / 90 s keepalive unless said otherwise). */
  Attacker setup() throws IOException {
    return setup(20_000, 90_000);
  }

  Attacker setup(int keepAliveMillis, int lifetimeMillis) throws IOException {
    sendFully(prefixed(setupFrame(keepAliveMillis, lifetimeMillis)));
    return this;
  }

  /**
   * Writes all of {@code bytes}, length-prefixed frames (as WebSocket messages in WebSocket mode),
   * reading nothing (hang guard 10 s).
   */
  void sendFully(byte[] bytes) throws IOException {
    sendWire(wire(bytes));
  }

  /** The bytes that carry {@code prefixedFrames} on this connection. */
  byte[] wire(byte[] prefixedFrames) {
    return ws ? WebSocketWire.messages(prefixedFrames) : prefixedFrames;
  }

  /** Writes {@code bytes} as they are (hang guard 10 s), reading nothing. */
  void sendWire(byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (b.hasRemaining()) {
      if (ch.write(b) == 0) {
        if (System.nanoTime() > end) {
          throw new IOException("server did not read for 10 s");
        }
        sleep(1);
      }
    }
  }

  /**
   * Writes batches from {@code nextBatch} for {@code duration} or until the server closes the
   * connection; reads (and parses) what arrives only if {@code read}. Returns bytes written.
   */
  long flood(Duration duration, boolean read, BatchSource nextBatch) throws IOException {
    return flood(duration, read, nextBatch, () -> false);
  }

  /**
   * {@link #flood(Duration, boolean, BatchSource)} that also ends once {@code stop} holds, such as
   * once the server reported that it cut this connection: a peer that does not read sees the cut
   * only when a write fails, which may be long after (the server first lets its output drain).
   */
  long flood(Duration duration, boolean read, BatchSource nextBatch, java.util.function.BooleanSupplier stop)
      throws IOException {
    long written = 0;
    long end = System.nanoTime() + duration.toNanos();
    int round = 0;
    while (System.nanoTime() < end && !closed && !writeFailed && !stop.getAsBoolean()) {
      if (pending == null || !pending.hasRemaining()) {
        pending = ByteBuffer.wrap(wire(nextBatch.next(round++)));
      }
      int n;
      try {
        n = ch.write(pending);
      } catch (IOException e) {
        writeFailed = true; // closed by the server
        break;
      }
      written += n;
      if (read) {
        readAvailable();
      }
      if (n == 0) {
        if (!read) {
          checkClosedWithoutReading();
        }
        sleep(1);
      }
    }
    return written;
  }

  /**
   * Writes the rest of the batch a {@link #flood} that ended was writing (hang guard 10 s), so that
   * what is sent next starts on a frame.
   */
  void finishBatch() throws IOException {
    if (pending != null && pending.hasRemaining()) {
      byte[] rest = new byte[pending.remaining()];
      pending.get(rest);
      sendWire(rest);
    }
  }

  /** Makes the next batch of length-prefixed frames. */
  @FunctionalInterface
  interface BatchSource {
    byte[] next(int round);
  }

  /**
   * A peer that does not read cannot see EOF without reading; but a write to a connection the
   * server closed fails, which {@link #flood} notices.
   */
  private void checkClosedWithoutReading() {}

  /** Reads and parses whatever has arrived, without waiting. */
  void readAvailable() throws IOException {
    for (; ; ) {
      readBuf.clear();
      int n;
      try {
        n = ch.read(readBuf);
      } catch (IOException e) {
        closed = true;
        return;
      }
      if (n < 0) {
        closed = true;
        return;
      }
      if (n == 0) {
        return;
      }
      bytesRead += n;
      append(readBuf.array(), n);
      parse();
    }
  }

  /** Reads until the server closes the connection (hang guard {@code guard}); true if it did. */
  boolean awaitClosed(Duration guard) throws IOException {
    long end = System.nanoTime() + guard.toNanos();
    while (!closed && System.nanoTime() < end) {
      long before = bytesRead;
      readAvailable();
      if (bytesRead == before && !closed) {
        sleep(2);
      }
    }
    return closed;
  }

  /**
   * Sends a KEEPALIVE with the respond flag and reads until its answer (hang guard {@code guard});
   * true if it came. The server has read everything sent before it by then.
   */
  boolean keepAliveFence(Duration guard) throws IOException {
    long before = keepAlivesRead;
    sendFully(prefixed(FrameBuilder.keepAlive(true, 0).toBytes()));
    long end = System.nanoTime() + guard.toNanos();
    while (keepAlivesRead == before && !closed && System.nanoTime() < end) {
      long read = bytesRead;
      readAvailable();
      if (bytesRead == read) {
        sleep(2);
      }
    }
    return keepAlivesRead > before;
  }

  /** The first ERROR on stream 0, or null. */
  Error connectionError() {
    for (Error e : errors) {
      if (e.streamId() == 0) {
        return e;
      }
    }
    return null;
  }

  private void append(byte[] b, int n) {
    if (accLen + n > acc.length) {
      byte[] bigger = new byte[Math.max(acc.length * 2, accLen + n)];
      System.arraycopy(acc, 0, bigger, 0, accLen);
      acc = bigger;
    }
    System.arraycopy(b, 0, acc, accLen, n);
    accLen += n;
  }

  private void parse() {
    int pos = 0;
    while (accLen - pos >= (ws ? 2 : 3)) {
      int f;
      int len;
      if (ws) {
        long[] frame = WebSocketWire.parseHeader(acc, pos, accLen);
        if (frame == null) {
          break;
        }
        int opcode = (int) frame[0];
        f = (int) frame[1];
        len = (int) frame[2];
        pos = f + len;
        if (opcode == 0x8) {
          closeCode = len >= 2 ? (acc[f] & 0xFF) << 8 | (acc[f + 1] & 0xFF) : 1005;
          closed = true;
        }
        if (opcode != 0x2) {
          continue;
        }
      } else {
        len = (acc[pos] & 0xFF) << 16 | (acc[pos + 1] & 0xFF) << 8 | (acc[pos + 2] & 0xFF);
        if (accLen - pos - 3 < len) {
          break;
        }
        f = pos + 3;
        pos = f + len;
      }
      framesRead++;
      if (len >= 10) {
        int streamId = (acc[f] & 0x7F) << 24 | (acc[f + 1] & 0xFF) << 16 | (acc[f + 2] & 0xFF) << 8
            | (acc[f + 3] & 0xFF);
        int type = (acc[f + 4] & 0xFF) >>> 2;
        if (type == FrameBuilder.TYPE_KEEPALIVE) {
          keepAlivesRead++;
        }
        if (type == FrameBuilder.TYPE_ERROR) {
          int code = (acc[f + 6] & 0xFF) << 24 | (acc[f + 7] & 0xFF) << 16 | (acc[f + 8] & 0xFF) << 8
              | (acc[f + 9] & 0xFF);
          String message = new String(acc, f + 10, len - 10, StandardCharsets.UTF_8);
          if (streamId == 0 || errors.size() < 20) {
            errors.add(new Error(streamId, code, message));
          } else {
            moreStreamErrors++;
          }
        }
      }
    }
    System.arraycopy(acc, pos, acc, 0, accLen - pos);
    accLen -= pos;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Concatenates frames into one batch. */
  static byte[] concat(List<byte[]> frames) {
    int size = 0;
    for (byte[] f : frames) {
      size += f.length;
    }
    byte[] out = new byte[size];
    int pos = 0;
    for (byte[] f : frames) {
      System.arraycopy(f, 0, out, pos, f.length);
      pos += f.length;
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    ch.close();
  }
}
