package io.sluice.transport.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.test.FrameBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.security.cert.X509Certificate;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A raw HTTP/2 client on one TCP connection to 127.0.0.1, for conformance and hostile-peer tests:
 * writes the bytes it is given as they are (frames built by the static methods here, header blocks
 * by {@link Hpack}, a stateless HPACK encoder of literals, so a batch can be sent again and again),
 * reads only when told to (so it can play a peer that never reads), and keeps what the server sent:
 * its first GOAWAY, its RST_STREAMs, the headers of each stream (decoded with netty's HPACK
 * decoder, in order, as a client must), DATA bytes and a count per frame type. Non-blocking, so a
 * server that stops reading never blocks it; every wait has a hang guard.
 *
 * <p>Over TLS ({@link #connectTls}) writes wait until the server takes them, so a peer that never
 * reads is played over plain TCP only.
 *
 * <p>Not thread-safe: one thread drives a peer. Loopback only.
 */
public final class RawH2Peer implements AutoCloseable {
  public static final int DATA = 0x0;
  public static final int HEADERS = 0x1;
  public static final int PRIORITY = 0x2;
  public static final int RST_STREAM = 0x3;
  public static final int SETTINGS = 0x4;
  public static final int PUSH_PROMISE = 0x5;
  public static final int PING = 0x6;
  public static final int GOAWAY = 0x7;
  public static final int WINDOW_UPDATE = 0x8;
  public static final int CONTINUATION = 0x9;

  public static final int FLAG_END_STREAM = 0x1;
  public static final int FLAG_ACK = 0x1;
  public static final int FLAG_END_HEADERS = 0x4;
  public static final int FLAG_PADDED = 0x8;
  public static final int FLAG_PRIORITY = 0x20;

  public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
  public static final int SETTINGS_ENABLE_PUSH = 0x2;
  public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
  public static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
  public static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
  public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

  /** The client connection preface (RFC 9113 section 3.4), without its SETTINGS frame. */
  public static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** The stream mapping's content type. */
  public static final String CONTENT_TYPE = "application/rsocket+http2";

  /** A GOAWAY received. */
  public record GoAway(int lastStreamId, long errorCode, String debug) {
    @Override
    public String toString() {
      return "GOAWAY(" + name(errorCode) + (debug.isEmpty() ? "" : ", \"" + debug + "\"") + ")";
    }
  }

  /** A frame received; payload copied (cut to {@link #keepData} bytes for DATA). */
  public record Frame(int type, int flags, int streamId, byte[] payload) {}

  /** The connection: a non-blocking socket, or TLS over a socket ({@link #connectTls}). */
  private final Wire ch;
  public final int localPort;
  private final ByteBuffer readBuf = ByteBuffer.allocate(64 * 1024);
  private byte[] acc = new byte[128 * 1024];
  private int accLen;
  private ByteBuffer pending;
  private final DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false, 1 << 20);
  private ByteArrayOutputStream headerBlock;
  private int headerBlockStream;

  /** The first GOAWAY received, or null. */
  public GoAway goAway;
  /** RST_STREAM codes received by stream (the first per stream). */
  public final Map<Integer, Long> resets = new HashMap<>();
  /** Each stream's header blocks, in order (response headers, then trailers). */
  public final Map<Integer, List<Http2Headers>> headers = new HashMap<>();
  /** DATA payload bytes received per stream. */
  public final Map<Integer, Long> dataBytes = new HashMap<>();
  /** The first 1000 frames received, in order (the rest are counted only). */
  public final List<Frame> frames = new ArrayList<>();
  /** How much of each DATA frame's payload {@link #frames} keeps (floods would fill memory). */
  public int keepData = 256;
  /** Frames received by type (types 0..15; unknown types count in 15). */
  public final long[] framesByType = new long[16];
  public long bytesRead;
  /** The data of the last PING ACK received, or -1. */
  public long lastPingAck = -1;
  /** The server's first SETTINGS arrived. */
  public boolean settingsReceived;
  /** Reading saw the server close (EOF) or reset the connection. */
  public boolean closed;
  /** A write failed: the server closed the connection. */
  public boolean writeFailed;

  private RawH2Peer(Wire ch, int localPort) {
    this.ch = ch;
    this.localPort = localPort;
  }

  /** Writes and reads without waiting (TLS: writes wait, reads do not). */
  private interface Wire {
    int write(ByteBuffer b) throws IOException;

    /** Bytes read, 0 if none are there now, -1 at the end. */
    int read(ByteBuffer b) throws IOException;

    void close() throws IOException;
  }

  private static final class Plain implements Wire {
    final SocketChannel ch;

    Plain(SocketChannel ch) {
      this.ch = ch;
    }

    @Override
    public int write(ByteBuffer b) throws IOException {
      return ch.write(b);
    }

    @Override
    public int read(ByteBuffer b) throws IOException {
      return ch.read(b);
    }

    @Override
    public void close() throws IOException {
      ch.close();
    }
  }

  /**
   * TLS over a blocking socket: a write waits until the server takes it (use it only with a
   * server that reads, or is closing); a read waits at most 1 ms.
   */
  private static final class Tls implements Wire {
    final SSLSocket socket;

    Tls(SSLSocket socket) {
      this.socket = socket;
    }

    @Override
    public int write(ByteBuffer b) throws IOException {
      int n = b.remaining();
      socket.getOutputStream().write(b.array(), b.arrayOffset() + b.position(), n);
      socket.getOutputStream().flush();
      b.position(b.limit());
      return n;
    }

    @Override
    public int read(ByteBuffer b) throws IOException {
      try {
        int n = socket.getInputStream().read(b.array(), b.arrayOffset() + b.position(), b.remaining());
        if (n > 0) {
          b.position(b.position() + n);
        }
        return n;
      } catch (SocketTimeoutException e) {
        return 0;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /**
   * Connects with TLS to 127.0.0.1:{@code port}, trusting any certificate (loopback tests only),
   * offering ALPN {@code h2}; fails unless the server chose it. Sends nothing after the handshake.
   */
  public static RawH2Peer connectTls(int port) throws IOException {
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {new TrustingManager()}, null);
      SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
      SSLParameters params = socket.getSSLParameters();
      params.setApplicationProtocols(new String[] {"h2"});
      socket.setSSLParameters(params);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      if (!"h2".equals(socket.getApplicationProtocol())) {
        socket.close();
        throw new IOException("the server did not choose h2 in ALPN: " + socket.getApplicationProtocol());
      }
      socket.setSoTimeout(1);
      return new RawH2Peer(new Tls(socket), socket.getLocalPort());
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  /** {@link #handshake} over TLS. */
  public static RawH2Peer handshakeTls(int port) throws IOException {
    RawH2Peer p = connectTls(port);
    p.send(concat(PREFACE, settings()));
    p.awaitFrame(f -> f.type() == SETTINGS && (f.flags() & FLAG_ACK) == 0, Duration.ofSeconds(10));
    if (!p.settingsReceived) {
      throw new IOException("no SETTINGS from the server" + (p.closed ? " (closed)" : ""));
    }
    p.send(settingsAck());
    return p;
  }

  /** Trusts every certificate: the tests talk to their own server on loopback. */
  private static final class TrustingManager implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  /**
   * Connects to 127.0.0.1:{@code port}; {@code receiveBuffer} > 0 sets a small socket receive
   * buffer, so a peer that does not read makes the server's socket fill up soon. Sends nothing.
   */
  public static RawH2Peer connect(int port, int receiveBuffer) throws IOException {
    SocketChannel ch = SocketChannel.open();
    if (receiveBuffer > 0) {
      ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
    }
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    ch.connect(new InetSocketAddress("127.0.0.1", port));
    ch.configureBlocking(false);
    return new RawH2Peer(new Plain(ch), ((InetSocketAddress) ch.getLocalAddress()).getPort());
  }

  /** Connects and sends the preface with an empty SETTINGS frame, reading nothing. */
  public static RawH2Peer open(int port) throws IOException {
    RawH2Peer p = connect(port, 0);
    p.send(concat(PREFACE, settings()));
    return p;
  }

  /**
   * Connects, sends the preface with {@code settings}, waits for the server's SETTINGS (hang guard
   * 10 s) and acknowledges it.
   */
  public static RawH2Peer handshake(int port, int... settings) throws IOException {
    RawH2Peer p = connect(port, 0);
    p.send(concat(PREFACE, settings(settings)));
    p.awaitFrame(f -> f.type() == SETTINGS && (f.flags() & FLAG_ACK) == 0, Duration.ofSeconds(10));
    if (!p.settingsReceived) {
      throw new IOException("no SETTINGS from the server" + (p.closed ? " (closed)" : ""));
    }
    p.send(settingsAck());
    return p;
  }

  // ---- frames ----------------------------------------------------------------------------------

  /** A frame header declaring {@code length} payload bytes. */
  public static byte[] frameHeader(int length, int type, int flags, int streamId) {
    return new byte[] {
      (byte) (length >>> 16), (byte) (length >>> 8), (byte) length,
      (byte) type, (byte) flags,
      (byte) (streamId >>> 24), (byte) (streamId >>> 16), (byte) (streamId >>> 8), (byte) streamId
    };
  }

  public static byte[] frame(int type, int flags, int streamId, byte[] payload) {
    return concat(frameHeader(payload.length, type, flags, streamId), payload);
  }

  /** SETTINGS with the given (identifier, value) pairs. */
  public static byte[] settings(int... idValuePairs) {
    ByteBuffer b = ByteBuffer.allocate(idValuePairs.length / 2 * 6);
    for (int i = 0; i + 1 < idValuePairs.length; i += 2) {
      b.putShort((short) idValuePairs[i]).putInt(idValuePairs[i + 1]);
    }
    return frame(SETTINGS, 0, 0, b.array());
  }

  public static byte[] settingsAck() {
    return frame(SETTINGS, FLAG_ACK, 0, new byte[0]);
  }

  public static byte[] ping(boolean ack, long data) {
    return frame(PING, ack ? FLAG_ACK : 0, 0, ByteBuffer.allocate(8).putLong(data).array());
  }

  public static byte[] rstStream(int streamId, Http2Error error) {
    return frame(RST_STREAM, 0, streamId, ByteBuffer.allocate(4).putInt((int) error.code()).array());
  }

  public static byte[] windowUpdate(int streamId, int increment) {
    return frame(WINDOW_UPDATE, 0, streamId, ByteBuffer.allocate(4).putInt(increment).array());
  }

  public static byte[] goAwayFrame(int lastStreamId, Http2Error error) {
    return frame(GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(lastStreamId).putInt((int) error.code()).array());
  }

  public static byte[] priority(int streamId, int dependency, int weight) {
    return frame(PRIORITY, 0, streamId, ByteBuffer.allocate(5).putInt(dependency).put((byte) weight).array());
  }

  public static byte[] data(int streamId, boolean endStream, byte[] payload) {
    return frame(DATA, endStream ? FLAG_END_STREAM : 0, streamId, payload);
  }

  /** HEADERS with END_HEADERS carrying {@code block}. */
  public static byte[] headers(int streamId, boolean endStream, byte[] block) {
    return frame(HEADERS, FLAG_END_HEADERS | (endStream ? FLAG_END_STREAM : 0), streamId, block);
  }

  /** The header block of a request of the stream mapping: POST {@code path}, its content type. */
  public static byte[] requestBlock(String path) {
    return requestBlock("POST", path, CONTENT_TYPE);
  }

  public static byte[] requestBlock(String method, String path, String contentType) {
    return Hpack.block(
        ":method", method, ":scheme", "http", ":authority", "127.0.0.1", ":path", path,
        "content-type", contentType);
  }

  /** HEADERS (END_HEADERS, no END_STREAM) opening a request-stream of the mapping. */
  public static byte[] streamRequestHeaders(int streamId) {
    return headers(streamId, false, requestBlock("/rsocket/stream"));
  }

  /** DATA carrying one length-prefixed RSocket frame ({@code rsocketFrame}, as FrameBuilder makes it). */
  public static byte[] rsocketData(int streamId, boolean endStream, byte[] rsocketFrame) {
    return data(streamId, endStream, FrameBuilder.lengthPrefixed(rsocketFrame));
  }

  /**
   * A whole request-stream of the mapping on {@code streamId}: HEADERS, then DATA with the
   * REQUEST_STREAM frame (initial request-n {@code n}, data {@code text}).
   */
  public static byte[] requestStream(int streamId, int n, String text) {
    return concat(
        streamRequestHeaders(streamId),
        rsocketData(streamId, false, FrameBuilder.requestStream(1, n).data(text).toBytes()));
  }

  public static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int pos = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, pos, p.length);
      pos += p.length;
    }
    return out;
  }

  /** {@code count} copies of {@code made(i)}, concatenated. */
  public static byte[] repeat(int count, java.util.function.IntFunction<byte[]> made) {
    List<byte[]> all = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      all.add(made.apply(i));
    }
    return concat(all.toArray(new byte[0][]));
  }

  /** A stateless HPACK encoder: literals without indexing, no Huffman (RFC 7541). */
  public static final class Hpack {
    private Hpack() {}

    /** A block of literal fields, never indexed: name, value, name, value... */
    public static byte[] block(String... namesAndValues) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
        literal(out, 0x00, namesAndValues[i], namesAndValues[i + 1]);
      }
      return out.toByteArray();
    }

    /** A literal field with incremental indexing (0x40): it enters the decoder's dynamic table. */
    public static byte[] indexedLiteral(String name, String value) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      literal(out, 0x40, name, value);
      return out.toByteArray();
    }

    /** An indexed field (0x80): a reference to the static or dynamic table, {@code index} >= 1. */
    public static byte[] indexed(int index) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      integer(out, 0x80, 7, index);
      return out.toByteArray();
    }

    private static void literal(ByteArrayOutputStream out, int first, String name, String value) {
      out.write(first);
      byte[] n = name.getBytes(StandardCharsets.US_ASCII);
      integer(out, 0, 7, n.length);
      out.writeBytes(n);
      byte[] v = value.getBytes(StandardCharsets.US_ASCII);
      integer(out, 0, 7, v.length);
      out.writeBytes(v);
    }

    /** An HPACK integer with an {@code prefixBits}-bit prefix, the first byte's high bits {@code mask}. */
    static void integer(ByteArrayOutputStream out, int mask, int prefixBits, int value) {
      int max = (1 << prefixBits) - 1;
      if (value < max) {
        out.write(mask | value);
        return;
      }
      out.write(mask | max);
      value -= max;
      while (value >= 128) {
        out.write((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      out.write(value);
    }
  }

  // ---- writing ---------------------------------------------------------------------------------

  /** Writes all of {@code bytes}, reading nothing (hang guard 10 s). */
  public void send(byte[] bytes) throws IOException {
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
   * Writes {@code bytes} and then reads what arrives; false (instead of an exception) if the server
   * has closed the connection meanwhile.
   */
  public boolean trySend(byte[] bytes) {
    try {
      send(bytes);
      return true;
    } catch (IOException e) {
      writeFailed = true;
      return false;
    }
  }

  /** Makes the next batch of a flood. */
  @FunctionalInterface
  public interface BatchSource {
    byte[] next(int round);
  }

  /**
   * Writes batches from {@code next} for {@code duration}, until the server closes the connection,
   * or until {@code stop} holds for this peer; reads (and parses) what arrives only if {@code
   * read}. Returns bytes written.
   */
  public long flood(Duration duration, boolean read, BatchSource next, Predicate<RawH2Peer> stop)
      throws IOException {
    long written = 0;
    long end = System.nanoTime() + duration.toNanos();
    int round = 0;
    while (System.nanoTime() < end && !closed && !writeFailed && !stop.test(this)) {
      if (pending == null || !pending.hasRemaining()) {
        pending = ByteBuffer.wrap(next.next(round++));
      }
      int n;
      try {
        n = ch.write(pending);
      } catch (IOException e) {
        writeFailed = true;
        break;
      }
      written += n;
      if (read) {
        readAvailable();
      }
      if (n == 0) {
        sleep(1);
      }
    }
    return written;
  }

  public long flood(Duration duration, boolean read, BatchSource next) throws IOException {
    return flood(duration, read, next, p -> false);
  }

  /**
   * Sends batches from {@code next}, each followed by a PING, and reads until that PING's ACK
   * arrives before sending the next, for {@code duration} or until a GOAWAY arrives or the
   * connection closes (hang guard 10 s per batch). The server has read everything sent when it
   * answers, so when it closes the connection nothing unread makes its kernel reset it, and its
   * GOAWAY reaches this peer. Returns the batches sent. Keep batches large enough to trip the
   * limit under test within a few of them: a server of the mapping counts each PING as a
   * keepalive, and more than 16 a second is a limit of its own.
   */
  public int fencedFlood(Duration duration, BatchSource next) throws IOException {
    long end = System.nanoTime() + duration.toNanos();
    int round = 0;
    while (System.nanoTime() < end && goAway == null && !closed && !writeFailed) {
      long fence = round;
      if (!trySend(concat(next.next(round++), ping(false, fence)))) {
        break;
      }
      await(p -> p.lastPingAck == fence || p.goAway != null, Duration.ofSeconds(10));
    }
    return round;
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** Reads and parses whatever has arrived, without waiting. */
  public void readAvailable() throws IOException {
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
  public boolean awaitClosed(Duration guard) throws IOException {
    return await(p -> false, guard) || closed;
  }

  /**
   * Reads until {@code condition} holds or the connection closes (hang guard {@code guard});
   * returns whether the condition held.
   */
  public boolean await(Predicate<RawH2Peer> condition, Duration guard) throws IOException {
    long end = System.nanoTime() + guard.toNanos();
    for (; ; ) {
      long before = bytesRead;
      readAvailable();
      if (condition.test(this)) {
        return true;
      }
      if (closed || System.nanoTime() > end) {
        return false;
      }
      if (bytesRead == before) {
        sleep(2);
      }
    }
  }

  /** Reads until a frame matching {@code f} arrives (hang guard); returns it, or null. */
  public Frame awaitFrame(Predicate<Frame> f, Duration guard) throws IOException {
    int[] from = {0};
    Frame[] found = new Frame[1];
    await(
        p -> {
          for (; from[0] < frames.size(); from[0]++) {
            if (f.test(frames.get(from[0]))) {
              found[0] = frames.get(from[0]);
              return true;
            }
          }
          return false;
        },
        guard);
    return found[0];
  }

  /** Reads until a GOAWAY arrives or the connection closes (hang guard); returns the GOAWAY or null. */
  public GoAway awaitGoAway(Duration guard) throws IOException {
    await(p -> p.goAway != null, guard);
    return goAway;
  }

  /**
   * Sends a PING with unique data and reads until its ACK arrives (hang guard 10 s); true if it
   * did. Frames the server sent before the ACK answer what this peer sent before the PING.
   */
  public boolean pingFence(long data) throws IOException {
    if (!trySend(ping(false, data))) {
      return false;
    }
    return await(p -> p.lastPingAck == data, Duration.ofSeconds(10));
  }

  /** The {@code :status} of the first header block of {@code streamId}, or null. */
  public String status(int streamId) {
    List<Http2Headers> h = headers.get(streamId);
    if (h == null || h.isEmpty() || h.get(0).status() == null) {
      return null;
    }
    return h.get(0).status().toString();
  }

  /** The value of {@code name} in the last header block of {@code streamId} (its trailers), or null. */
  public String trailer(int streamId, String name) {
    List<Http2Headers> h = headers.get(streamId);
    if (h == null || h.isEmpty()) {
      return null;
    }
    CharSequence v = h.get(h.size() - 1).get(name);
    return v == null ? null : v.toString();
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

  private void parse() throws IOException {
    int pos = 0;
    while (accLen - pos >= 9) {
      int len = (acc[pos] & 0xFF) << 16 | (acc[pos + 1] & 0xFF) << 8 | (acc[pos + 2] & 0xFF);
      if (accLen - pos - 9 < len) {
        break;
      }
      int type = acc[pos + 3] & 0xFF;
      int flags = acc[pos + 4] & 0xFF;
      int streamId = ByteBuffer.wrap(acc, pos + 5, 4).getInt() & 0x7FFFFFFF;
      int p = pos + 9;
      pos = p + len;
      onFrame(type, flags, streamId, p, len);
    }
    System.arraycopy(acc, pos, acc, 0, accLen - pos);
    accLen -= pos;
  }

  private void onFrame(int type, int flags, int streamId, int p, int len) throws IOException {
    framesByType[Math.min(type, 15)]++;
    if (frames.size() < 1000) {
      int keep = type == DATA ? Math.min(len, keepData) : len;
      byte[] payload = new byte[keep];
      System.arraycopy(acc, p, payload, 0, keep);
      frames.add(new Frame(type, flags, streamId, payload));
    }
    ByteBuffer b = ByteBuffer.wrap(acc, p, len);
    switch (type) {
      case DATA:
        dataBytes.merge(streamId, (long) len, Long::sum);
        break;
      case HEADERS:
        int off = 0;
        int padding = 0;
        if ((flags & FLAG_PADDED) != 0) {
          padding = acc[p] & 0xFF;
          off = 1;
        }
        if ((flags & FLAG_PRIORITY) != 0) {
          off += 5;
        }
        headerBlock = new ByteArrayOutputStream();
        headerBlockStream = streamId;
        headerBlock.write(acc, p + off, len - off - padding);
        if ((flags & FLAG_END_HEADERS) != 0) {
          endHeaderBlock();
        }
        break;
      case CONTINUATION:
        if (headerBlock != null) {
          headerBlock.write(acc, p, len);
          if ((flags & FLAG_END_HEADERS) != 0) {
            endHeaderBlock();
          }
        }
        break;
      case RST_STREAM:
        if (len >= 4) {
          resets.putIfAbsent(streamId, b.getInt() & 0xFFFFFFFFL);
        }
        break;
      case SETTINGS:
        if ((flags & FLAG_ACK) == 0) {
          settingsReceived = true;
        }
        break;
      case PING:
        if ((flags & FLAG_ACK) != 0 && len == 8) {
          lastPingAck = b.getLong();
        }
        break;
      case GOAWAY:
        if (goAway == null && len >= 8) {
          int last = b.getInt() & 0x7FFFFFFF;
          long code = b.getInt() & 0xFFFFFFFFL;
          goAway = new GoAway(last, code, new String(acc, p + 8, len - 8, StandardCharsets.UTF_8));
        }
        break;
      default:
        break;
    }
  }

  private void endHeaderBlock() throws IOException {
    ByteBuf block = Unpooled.wrappedBuffer(headerBlock.toByteArray());
    headerBlock = null;
    try {
      headers.computeIfAbsent(headerBlockStream, k -> new ArrayList<>())
          .add(hpack.decodeHeaders(headerBlockStream, block));
    } catch (Http2Exception e) {
      throw new IOException("the server sent a header block we cannot decode", e);
    } finally {
      block.release();
    }
  }

  /**
   * The HPACK table size this peer's decoder keeps from now on, as the SETTINGS_HEADER_TABLE_SIZE
   * it sends says: below the size the server's encoder has, the server's next header block must
   * open with a table size update (RFC 7541 4.2), or decoding it fails.
   */
  public void decoderTableSize(long size) throws Http2Exception {
    hpack.configuration().maxHeaderTableSize(size);
  }

  /** The name of an HTTP/2 error code. */
  public static String name(long code) {
    Http2Error e = Http2Error.valueOf(code);
    return e != null ? e.name() : "0x" + Long.toHexString(code);
  }

  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() throws IOException {
    ch.close();
  }
}
