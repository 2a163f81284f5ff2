package io.sluice.transport.websocket.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/** RFC 6455 opening handshake helpers: the accept key, header tokens, raw HTTP responses. */
final class Handshake {
  private Handshake() {}

  private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

  /** Sec-WebSocket-Accept for a Sec-WebSocket-Key. */
  static String accept(String key) {
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      byte[] digest = sha1.digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JDK", e);
    }
  }

  /** Is {@code key} the base64 of 16 bytes, as RFC 6455 4.1 requires? */
  static boolean validKey(String key) {
    if (key == null || key.length() != 24) {
      return false;
    }
    try {
      return Base64.getDecoder().decode(key).length == 16;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Does the comma-separated header field, as all its {@code lines} (RFC 9110 5.3: a field may
   * come as several lines, the same as one with their values joined by commas), hold {@code
   * token} (case-insensitive)?
   */
  static boolean hasToken(List<String> lines, String token) {
    for (String value : lines) {
      for (String part : value.split(",")) {
        if (part.trim().toLowerCase(Locale.ROOT).equals(token)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The response to a refused upgrade ({@code status} with a short text body), asking the client
   * to close; {@code extraHeader} (may be null) is one more {@code Name: value} line.
   */
  static ByteBuf refusal(ByteBufAllocator alloc, int status, String reason, String extraHeader) {
    String body = status + " " + reason + "\n";
    StringBuilder b = new StringBuilder(160);
    b.append("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
    b.append("Content-Type: text/plain; charset=utf-8\r\n");
    b.append("Content-Length: ").append(body.length()).append("\r\n");
    b.append("Connection: close\r\n");
    if (extraHeader != null) {
      b.append(extraHeader).append("\r\n");
    }
    b.append("\r\n").append(body);
    return ascii(alloc, b);
  }

  static ByteBuf ascii(ByteBufAllocator alloc, CharSequence text) {
    ByteBuf out = alloc.buffer(text.length());
    out.writeCharSequence(text, StandardCharsets.US_ASCII);
    return out;
  }
}
