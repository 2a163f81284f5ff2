package io.sluice.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/** WebSocket framing for {@link Attacker}: the upgrade, masked client messages, server frames. */
final class WebSocketWire {
  private WebSocketWire() {}

  /** Sends the upgrade request on a blocking channel and reads the 101 (hang guard: the socket). */
  static void upgrade(SocketChannel ch) throws IOException {
    ch.write(ByteBuffer.wrap(request("/").getBytes(StandardCharsets.US_ASCII)));
    String head = readHead(ch);
    if (!head.startsWith("HTTP/1.1 101")) {
      throw new IOException("upgrade refused: " + head);
    }
  }

  static String request(String path) {
    byte[] nonce = new byte[16];
    ThreadLocalRandom.current().nextBytes(nonce);
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: " + java.util.Base64.getEncoder().encodeToString(nonce) + "\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n";
  }

  /** Reads byte by byte up to the blank line (the server sends nothing after it unasked). */
  static String readHead(SocketChannel ch) throws IOException {
    StringBuilder b = new StringBuilder();
    ByteBuffer one = ByteBuffer.allocate(1);
    while (!b.toString().endsWith("\r\n\r\n")) {
      one.clear();
      if (ch.read(one) < 0) {
        throw new IOException("EOF in the upgrade response: " + b);
      }
      b.append((char) one.get(0));
    }
    return b.toString();
  }

  /**
   * Each u24-length-prefixed frame of {@code prefixed} as one masked binary message. A last frame
   * that is cut short (an attack declaring more than it sends) keeps its declared length in the
   * WebSocket header, followed by the bytes there are.
   */
  static byte[] messages(byte[] prefixed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(prefixed.length + prefixed.length / 4 + 16);
    int pos = 0;
    while (pos + 3 <= prefixed.length) {
      int len = (prefixed[pos] & 0xFF) << 16 | (prefixed[pos + 1] & 0xFF) << 8 | (prefixed[pos + 2] & 0xFF);
      int have = Math.min(len, prefixed.length - pos - 3);
      writeFrame(out, 0x80 | 0x2, prefixed, pos + 3, have, len, true);
      pos += 3 + have;
    }
    return out.toByteArray();
  }

  /**
   * Writes a frame header declaring {@code declared} bytes and {@code n} bytes of {@code src} from
   * {@code off} (masked with a random key if {@code mask}).
   */
  static void writeFrame(
      ByteArrayOutputStream out, int b0, byte[] src, int off, int n, long declared, boolean mask) {
    out.write(b0);
    int m = mask ? 0x80 : 0;
    if (declared < 126) {
      out.write(m | (int) declared);
    } else if (declared < 65536) {
      out.write(m | 126);
      out.write((int) (declared >>> 8));
      out.write((int) declared);
    } else {
      out.write(m | 127);
      for (int i = 7; i >= 0; i--) {
        out.write((int) (declared >>> (8 * i)));
      }
    }
    byte[] key = new byte[4];
    if (mask) {
      ThreadLocalRandom.current().nextBytes(key);
      out.write(key, 0, 4);
    }
    for (int i = 0; i < n; i++) {
      out.write(src[off + i] ^ key[i & 3]);
    }
  }

  /** One frame of {@code payload}: first byte {@code b0}, masked or not. */
  static byte[] frame(int b0, byte[] payload, boolean mask) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 14);
    writeFrame(out, b0, payload, 0, payload.length, payload.length, mask);
    return out.toByteArray();
  }

  /**
   * The server frame at {@code pos} of {@code acc} (filled to {@code end}): {opcode, payload
   * offset, payload length}, or null if it is not all there. Server frames are not masked.
   */
  static long[] parseHeader(byte[] acc, int pos, int end) {
    if (end - pos < 2) {
      return null;
    }
    int len7 = acc[pos + 1] & 0x7F;
    int header = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
    if (end - pos < header) {
      return null;
    }
    long len = len7;
    if (len7 == 126) {
      len = (acc[pos + 2] & 0xFF) << 8 | (acc[pos + 3] & 0xFF);
    } else if (len7 == 127) {
      len = ByteBuffer.wrap(acc, pos + 2, 8).getLong();
    }
    if (end - pos - header < len) {
      return null;
    }
    return new long[] {acc[pos] & 0x0F, pos + header, len};
  }
}
