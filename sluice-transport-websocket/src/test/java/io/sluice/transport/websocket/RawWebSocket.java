package io.sluice.transport.websocket;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A hand-made WebSocket peer on a blocking socket to 127.0.0.1, for tests that need to break the
 * protocol: writes the frames it is told (masked or not, any opcode, any declared length) and reads
 * raw frames. Reads time out after 20 s (a hang guard).
 */
final class RawWebSocket implements AutoCloseable {
  /** One frame read; {@code headerSize}: bytes before its payload (masking key included). */
  record Frame(int opcode, boolean fin, boolean masked, byte[] payload, int headerSize) {
    int closeCode() {
      return payload.length >= 2 ? (payload[0] & 0xFF) << 8 | (payload[1] & 0xFF) : 1005;
    }

    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  final Socket socket;
  final DataInputStream in;
  final OutputStream out;
  /** The status line and headers of the server's answer. */
  String responseHead;

  RawWebSocket(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout(20_000);
    socket.setTcpNoDelay(true);
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  static RawWebSocket open(int port) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    return new RawWebSocket(s);
  }

  /** Connects and sends an upgrade request for {@code path} with {@code extraHeaders}; reads the answer. */
  static RawWebSocket upgrade(int port, String path, String... extraHeaders) throws IOException {
    RawWebSocket ws = open(port);
    ws.sendRaw(request(path, extraHeaders));
    ws.readResponseHead();
    return ws;
  }

  static String request(String path, String... extraHeaders) {
    byte[] nonce = new byte[16];
    ThreadLocalRandom.current().nextBytes(nonce);
    StringBuilder b = new StringBuilder();
    b.append("GET ").append(path).append(" HTTP/1.1\r\n");
    b.append("Host: 127.0.0.1\r\n");
    b.append("Upgrade: websocket\r\nConnection: Upgrade\r\n");
    b.append("Sec-WebSocket-Key: ").append(Base64.getEncoder().encodeToString(nonce)).append("\r\n");
    b.append("Sec-WebSocket-Version: 13\r\n");
    for (String h : extraHeaders) {
      b.append(h).append("\r\n");
    }
    return b.append("\r\n").toString();
  }

  void sendRaw(String ascii) throws IOException {
    out.write(ascii.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads up to the blank line ending the response head. */
  String readResponseHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("EOF in the response head: " + head);
      }
      head.write(c);
      state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
    }
    responseHead = head.toString(StandardCharsets.US_ASCII);
    return responseHead;
  }

  int status() {
    return Integer.parseInt(responseHead.split(" ", 3)[1]);
  }

  /** The value of response header {@code name}, or null. */
  String header(String name) {
    for (String line : responseHead.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** A masked, final binary frame. */
  void sendBinary(byte[] payload) throws IOException {
    send(0x80 | 0x2, payload, true);
  }

  /** One frame: first byte {@code b0} as given, the payload masked with a random key if {@code mask}. */
  void send(int b0, byte[] payload, boolean mask) throws IOException {
    out.write(frame(b0, payload, mask));
    out.flush();
  }

  /** Frames made by {@link #frame}, sent in one write (so the server reads them together). */
  void sendTogether(byte[]... frames) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] f : frames) {
      b.write(f);
    }
    out.write(b.toByteArray());
    out.flush();
  }

  static byte[] frame(int b0, byte[] payload, boolean mask) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(payload.length + 14);
    b.write(b0);
    int m = mask ? 0x80 : 0;
    int len = payload.length;
    if (len < 126) {
      b.write(m | len);
    } else if (len < 65536) {
      b.write(m | 126);
      b.write(len >>> 8);
      b.write(len);
    } else {
      b.write(m | 127);
      for (int i = 7; i >= 0; i--) {
        b.write((int) ((long) len >>> (8 * i)));
      }
    }
    byte[] key = new byte[4];
    if (mask) {
      ThreadLocalRandom.current().nextBytes(key);
      b.write(key, 0, 4);
    }
    for (int i = 0; i < len; i++) {
      b.write(payload[i] ^ key[i & 3]);
    }
    return b.toByteArray();
  }

  /** Only the header of a frame declaring {@code length} bytes (64-bit length form), masked. */
  void sendHeaderOnly(int b0, long length) throws IOException {
    byte[] h = new byte[14];
    h[0] = (byte) b0;
    h[1] = (byte) (0x80 | 127);
    for (int i = 0; i < 8; i++) {
      h[2 + i] = (byte) (length >>> (8 * (7 - i)));
    }
    out.write(h);
    out.flush();
  }

  Frame read() throws IOException {
    int b0 = in.readUnsignedByte();
    int b1 = in.readUnsignedByte();
    long len = b1 & 0x7F;
    int headerSize = 2;
    if (len == 126) {
      len = in.readUnsignedShort();
      headerSize += 2;
    } else if (len == 127) {
      len = in.readLong();
      headerSize += 8;
    }
    byte[] key = new byte[4];
    boolean masked = (b1 & 0x80) != 0;
    if (masked) {
      in.readFully(key);
      headerSize += 4;
    }
    byte[] payload = new byte[(int) len];
    in.readFully(payload);
    for (int i = 0; i < payload.length; i++) {
      payload[i] ^= key[i & 3];
    }
    return new Frame(b0 & 0x0F, (b0 & 0x80) != 0, masked, payload, headerSize);
  }

  /** Reads frames until a close frame, returning it; null if the connection ended without one. */
  Frame awaitClose() throws IOException {
    try {
      for (; ; ) {
        Frame f = read();
        if (f.opcode() == 0x8) {
          return f;
        }
      }
    } catch (EOFException | SocketException e) {
      return null;
    }
  }

  /** True once the server ended the connection (EOF or reset) after reading anything still sent. */
  boolean awaitEof() throws IOException {
    try {
      while (in.read() >= 0) {
        // discard
      }
      return true;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
