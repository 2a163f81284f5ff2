package io.sluice.transport.grpc.internal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-message} header's percent-encoding (gRPC over HTTP/2, "Responses"): the message
 * is UTF-8; every byte outside printable ASCII (0x20..0x7E), and {@code %} itself, is sent as
 * {@code %XX} (upper-case hex). Decoding is lenient, as the spec asks: a {@code %} not followed by
 * two hex digits is kept as it is, and bytes that are not valid UTF-8 become U+FFFD.
 *
 * <p>Stateless: safe from any thread. Holds no buffers.
 */
public final class StatusMessages {
  private StatusMessages() {}

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  /** {@code message} percent-encoded for {@code grpc-message}. */
  public static String encode(String message) {
    int i = 0;
    int n = message.length();
    while (i < n && !needsEscape(message.charAt(i))) {
      i++;
    }
    if (i == n) {
      return message; // the common case: nothing to escape
    }
    byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length + 16);
    for (byte b : utf8) {
      int c = b & 0xFF;
      if (needsEscape((char) c)) {
        out.append('%').append((char) HEX[c >> 4]).append((char) HEX[c & 0xF]);
      } else {
        out.append((char) c);
      }
    }
    return out.toString();
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || c > 0x7E || c == '%';
  }

  /** The message a {@code grpc-message} value carries (null gives the empty string). */
  public static String decode(CharSequence value) {
    if (value == null) {
      return "";
    }
    int n = value.length();
    boolean escaped = false;
    for (int i = 0; i < n && !escaped; i++) {
      escaped = value.charAt(i) == '%';
    }
    if (!escaped) {
      return value.toString();
    }
    ByteBuffer bytes = ByteBuffer.allocate(n);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (c == '%' && i + 2 < n && hex(value.charAt(i + 1)) >= 0 && hex(value.charAt(i + 2)) >= 0) {
        bytes.put((byte) (hex(value.charAt(i + 1)) << 4 | hex(value.charAt(i + 2))));
        i += 2;
      } else {
        bytes.put((byte) c);
      }
    }
    bytes.flip();
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPLACE)
              .onUnmappableCharacter(CodingErrorAction.REPLACE)
              .decode(bytes);
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new AssertionError("a replacing decoder does not fail", e);
    }
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }
}
