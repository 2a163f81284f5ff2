package io.sluice.transport.tck;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import java.nio.charset.StandardCharsets;

/**
 * Messages the kit sends: text, or a numbered message of a given size whose every byte can be
 * checked on arrival (bytes 0-3 are the number, byte {@code i} after them is {@code (i * 31 + n)}
 * mod 256), so that a reordered, truncated or corrupted message is caught. Stateless.
 */
final class KitMessages {
  private KitMessages() {}

  /** A text message ({@code metadata} null: none) in buffers from {@code alloc}. */
  static Message text(CountingAllocator alloc, String metadata, String data) {
    return Message.of(metadata == null ? null : utf8(alloc, metadata), utf8(alloc, data));
  }

  private static ByteBuf utf8(CountingAllocator alloc, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    ByteBuf b = alloc.buffer(bytes.length);
    b.writeBytes(bytes);
    return b;
  }

  /** Message number {@code n}: {@code size} bytes of data (at least 4), no metadata. */
  static Message numbered(CountingAllocator alloc, int n, int size) {
    return Message.of(pattern(alloc, n, size));
  }

  /** Message number {@code n} with {@code metadataSize} bytes of numbered metadata too. */
  static Message numbered(CountingAllocator alloc, int n, int metadataSize, int size) {
    return Message.of(pattern(alloc, n + 1_000_000, metadataSize), pattern(alloc, n, size));
  }

  private static ByteBuf pattern(CountingAllocator alloc, int n, int size) {
    if (size < 4) {
      throw new IllegalArgumentException("a numbered message has at least 4 bytes, got " + size);
    }
    // One bulk write: netty's leak detector at PARANOID records a stack trace per buffer call.
    byte[] bytes = new byte[size];
    bytes[0] = (byte) (n >>> 24);
    bytes[1] = (byte) (n >>> 16);
    bytes[2] = (byte) (n >>> 8);
    bytes[3] = (byte) n;
    for (int i = 4; i < size; i++) {
      bytes[i] = (byte) (i * 31 + n);
    }
    ByteBuf b = alloc.buffer(size);
    b.writeBytes(bytes);
    return b;
  }

  /**
   * The number of a numbered buffer, or -1 if a byte is not what it should be; leaves the buffer
   * and its indexes alone.
   */
  static int numberOf(ByteBuf b) {
    int size = b.readableBytes();
    if (size < 4) {
      return -1;
    }
    byte[] bytes = new byte[size];
    b.getBytes(b.readerIndex(), bytes); // one call (see pattern)
    int n = (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | bytes[3] & 0xFF;
    for (int i = 4; i < size; i++) {
      if (bytes[i] != (byte) (i * 31 + n)) {
        return -1;
      }
    }
    return n;
  }

  /** A short description of a message: its text when small, its size and number when large. */
  static String describe(Message m) {
    String data =
        m.data().readableBytes() <= 256
            ? m.dataUtf8()
            : m.data().readableBytes() + " bytes #" + numberOf(m.data());
    if (!m.hasMetadata()) {
      return data;
    }
    String md =
        m.metadata().readableBytes() <= 256
            ? m.metadataUtf8()
            : m.metadata().readableBytes() + " bytes #" + numberOf(m.metadata());
    return md + "|" + data;
  }
}
