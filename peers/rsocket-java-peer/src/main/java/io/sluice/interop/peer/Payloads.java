package io.sluice.interop.peer;

import io.rsocket.Payload;
import io.rsocket.util.DefaultPayload;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Small byte/payload helpers shared by the echo server and the conformance client. */
final class Payloads {

  /** Modulus of the checksum reported by the {@code len:} answer. */
  static final int CHECKSUM_MODULUS = 1_000_003;

  private Payloads() {}

  /** Returns {@code size} bytes where byte {@code i} is {@code (byte) (i % 251)}. */
  static byte[] pattern(int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i % 251);
    }
    return bytes;
  }

  /** Sum of the unsigned values of {@code bytes}, modulo {@link #CHECKSUM_MODULUS}. */
  static long checksum(byte[] bytes) {
    long sum = 0;
    for (byte b : bytes) {
      sum = (sum + (b & 0xFF)) % CHECKSUM_MODULUS;
    }
    return sum;
  }

  /** The data of {@code payload} as a fresh byte array. */
  static byte[] data(Payload payload) {
    return toBytes(payload.getData());
  }

  /** The metadata of {@code payload} as a fresh byte array, or {@code null} if it has none. */
  static byte[] metadataOrNull(Payload payload) {
    return payload.hasMetadata() ? toBytes(payload.getMetadata()) : null;
  }

  static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code prefix} (UTF-8) followed by {@code rest}. */
  static byte[] concat(String prefix, byte[] rest) {
    byte[] head = utf8(prefix);
    byte[] out = new byte[head.length + rest.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(rest, 0, out, head.length, rest.length);
    return out;
  }

  /** A data-only payload carrying {@code text} as UTF-8. */
  static Payload text(String text) {
    return DefaultPayload.create(utf8(text));
  }

  private static byte[] toBytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
  }
}
