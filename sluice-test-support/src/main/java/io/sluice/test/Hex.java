package io.sluice.test;

import io.netty.buffer.ByteBuf;

/**
 * Hex strings for byte-exact test vectors. Stateless and thread-safe.
 *
 * <p>Holds no buffers: the {@code ByteBuf} methods copy the readable bytes without moving the
 * indexes or releasing the buffer.
 */
public final class Hex {
  private Hex() {}

  private static final char[] DIGITS = "0123456789abcdef".toCharArray();

  /**
   * Parses hex digits, ignoring whitespace, '_' and ':' so vectors can be grouped by field, e.g.
   * {@code "00000000 0400 0001 0000"}.
   */
  public static byte[] decode(String hex) {
    StringBuilder digits = new StringBuilder(hex.length());
    for (int i = 0; i < hex.length(); i++) {
      char c = hex.charAt(i);
      if (Character.isWhitespace(c) || c == '_' || c == ':') {
        continue;
      }
      if (Character.digit(c, 16) < 0) {
        throw new IllegalArgumentException("not a hex digit: '" + c + "' in " + hex);
      }
      digits.append(c);
    }
    if (digits.length() % 2 != 0) {
      throw new IllegalArgumentException("odd number of hex digits in " + hex);
    }
    byte[] out = new byte[digits.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] =
          (byte)
              ((Character.digit(digits.charAt(2 * i), 16) << 4)
                  | Character.digit(digits.charAt(2 * i + 1), 16));
    }
    return out;
  }

  /** Lower-case hex of {@code bytes}, no separators. */
  public static String encode(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = DIGITS[(bytes[i] >>> 4) & 0xF];
      out[2 * i + 1] = DIGITS[bytes[i] & 0xF];
    }
    return new String(out);
  }

  /**
   * Lower-case hex of the readable bytes of {@code buf}; does not move its indexes or release it.
   */
  public static String encode(ByteBuf buf) {
    return encode(bytes(buf));
  }

  /** A copy of the readable bytes of {@code buf}; does not move its indexes or release it. */
  public static byte[] bytes(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), out);
    return out;
  }

  /** Canonical form of a hex vector: whitespace and separators removed, lower case. */
  public static String normalize(String hex) {
    return encode(decode(hex));
  }
}
