package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AsciiString;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import java.nio.charset.StandardCharsets;

/**
 * The constants and small codecs of the HTTP/2 stream mapping (docs/http2-stream-mapping.md):
 * request paths, the content type, the trailers, the implied SETUP and the GOAWAY debug data.
 */
public final class MappingWire {
  private MappingWire() {}

  public static final AsciiString CONTENT_TYPE = AsciiString.cached("application/rsocket+http2");
  public static final AsciiString STATUS = AsciiString.cached("rsocket-status");
  public static final AsciiString MESSAGE = AsciiString.cached("rsocket-message");
  public static final AsciiString PATH_FNF = AsciiString.cached("/rsocket/fnf");
  public static final AsciiString PATH_RESPONSE = AsciiString.cached("/rsocket/response");
  public static final AsciiString PATH_STREAM = AsciiString.cached("/rsocket/stream");
  public static final AsciiString PATH_CHANNEL = AsciiString.cached("/rsocket/channel");
  static final AsciiString STATUS_OK = AsciiString.cached("0");

  /** Keepalive interval and lifetime of the implied setup: 2^31-1 ms, so never. */
  public static final int IMPLIED_KEEPALIVE_MILLIS = Integer.MAX_VALUE;
  /** MIME types the server's engine sees in the implied setup (Sluice's defaults). */
  public static final String IMPLIED_MIME_TYPE = "application/binary";

  /** Longest {@code rsocket-message} or GOAWAY debug text written, in bytes (longer is cut). */
  static final int MAX_MESSAGE_BYTES = 1024;

  /** The plain-RSocket path of a request frame type, or null if {@code type} is not a request. */
  public static AsciiString pathOf(int type) {
    switch (type) {
      case FrameType.REQUEST_FNF:
        return PATH_FNF;
      case FrameType.REQUEST_RESPONSE:
        return PATH_RESPONSE;
      case FrameType.REQUEST_STREAM:
        return PATH_STREAM;
      case FrameType.REQUEST_CHANNEL:
        return PATH_CHANNEL;
      default:
        return null;
    }
  }

  /**
   * The request frame type a {@code /rsocket/...} path names, -1 for another {@code /rsocket/...}
   * path (an error), 0 for any other path (an RPC path: the frame decides).
   */
  public static int typeOfPath(CharSequence path) {
    if (!AsciiString.regionMatches(path, false, 0, "/rsocket/", 0, 9)) {
      return 0;
    }
    if (PATH_FNF.contentEquals(path)) {
      return FrameType.REQUEST_FNF;
    }
    if (PATH_RESPONSE.contentEquals(path)) {
      return FrameType.REQUEST_RESPONSE;
    }
    if (PATH_STREAM.contentEquals(path)) {
      return FrameType.REQUEST_STREAM;
    }
    if (PATH_CHANNEL.contentEquals(path)) {
      return FrameType.REQUEST_CHANNEL;
    }
    return -1;
  }

  /** Whether a {@code content-type} value is the mapping's (parameters after ';' allowed). */
  public static boolean isMappingContentType(CharSequence contentType) {
    if (contentType == null) {
      return false;
    }
    int n = CONTENT_TYPE.length();
    return AsciiString.regionMatches(contentType, true, 0, CONTENT_TYPE, 0, n)
        && (contentType.length() == n || contentType.charAt(n) == ';' || contentType.charAt(n) == ' ');
  }

  /**
   * Whether a response {@code :status} is an interim (informational, 1xx) answer that a final one
   * follows; 101 is not (HTTP/2 has no protocol switch: RFC 9113 8.6).
   */
  public static boolean isInterim(CharSequence status) {
    return status != null && status.length() == 3 && status.charAt(0) == '1'
        && !AsciiString.contentEquals(status, "101")
        && Character.isDigit(status.charAt(1)) && Character.isDigit(status.charAt(2));
  }

  /** The implied SETUP the server's engine receives when a connection's first stream arrives. */
  public static ByteBuf impliedSetup(ByteBufAllocator alloc) {
    ByteBuf out = alloc.buffer(64);
    Setup.write(
        out,
        false,
        IMPLIED_KEEPALIVE_MILLIS,
        IMPLIED_KEEPALIVE_MILLIS,
        null,
        IMPLIED_MIME_TYPE,
        IMPLIED_MIME_TYPE,
        null,
        null);
    return out;
  }

  /**
   * Why a client's SETUP cannot be carried (the mapping's setup is implied), or null if it can:
   * lease, resume and a setup payload are refused; MIME types are not carried.
   */
  public static String unsupportedSetup(ByteBuf setup) {
    if (Setup.leaseRequested(setup)) {
      return "the HTTP/2 stream mapping has no lease (its setup is implied); connect without lease";
    }
    if (Setup.resumeRequested(setup)) {
      return "the HTTP/2 stream mapping has no resumption (its setup is implied)";
    }
    if (Setup.hasPayload(setup)) {
      return "the HTTP/2 stream mapping carries no setup payload (its setup is implied); connect"
          + " without one";
    }
    return null;
  }

  /** A synthesized frame: ERROR on {@code streamId}. */
  public static ByteBuf error(ByteBufAllocator alloc, int streamId, int code, String message) {
    String m = cut(message);
    ByteBuf out = alloc.buffer(Frames.errorSize(m));
    Frames.writeError(out, streamId, code, m);
    return out;
  }

  /** A synthesized frame: PAYLOAD with only the COMPLETE flag, on {@code streamId}. */
  public static ByteBuf complete(ByteBufAllocator alloc, int streamId) {
    ByteBuf out = alloc.buffer(Frames.HEADER_SIZE);
    Frames.writeHeader(out, streamId, FrameType.PAYLOAD, Frames.FLAG_COMPLETE);
    return out;
  }

  /** A synthesized frame: CANCEL on {@code streamId}. */
  public static ByteBuf cancel(ByteBufAllocator alloc, int streamId) {
    ByteBuf out = alloc.buffer(Frames.HEADER_SIZE);
    Frames.writeCancel(out, streamId);
    return out;
  }

  /** A synthesized frame: the answer to a keepalive (no respond flag, position 0, no data). */
  public static ByteBuf keepAliveAnswer(ByteBufAllocator alloc) {
    ByteBuf out = alloc.buffer(Frames.HEADER_SIZE + 8);
    Frames.writeKeepAlive(out, false, 0, null);
    return out;
  }

  /** GOAWAY debug data for an RSocket connection error: {@code 0x<code hex>:<message>}. */
  public static ByteBuf goAwayDebug(ByteBufAllocator alloc, int code, String message) {
    String text = "0x" + String.format("%08X", code) + ":" + cut(message);
    return ByteBufUtil.writeUtf8(alloc, text);
  }

  /**
   * The RSocket error code in GOAWAY debug data ({@code 0x<hex>:...} or {@code <decimal>:...}),
   * or -1 if it holds none.
   */
  public static int goAwayCode(ByteBuf debug) {
    String s = debug.toString(StandardCharsets.UTF_8);
    int colon = s.indexOf(':');
    if (colon <= 0) {
      return -1;
    }
    long v = parseCode(s.substring(0, colon));
    return v >= 0 ? (int) v : -1;
  }

  /** The message part of GOAWAY debug data (after the code), or all of it if it holds no code. */
  public static String goAwayMessage(ByteBuf debug) {
    String s = debug.toString(StandardCharsets.UTF_8);
    return goAwayCode(debug) >= 0 ? s.substring(s.indexOf(':') + 1) : s;
  }

  /** Percent-encodes {@code message} for a header value (as grpc-message is): visible ASCII stays. */
  static String encodeMessage(String message) {
    byte[] bytes = cut(message).getBytes(StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(bytes.length);
    for (byte x : bytes) {
      int c = x & 0xFF;
      if (c >= 0x20 && c < 0x7F && c != '%') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
      }
    }
    return b.toString();
  }

  /** Reverses {@link #encodeMessage}; a malformed escape is kept as it is. */
  static String decodeMessage(CharSequence value) {
    if (value == null) {
      return "";
    }
    byte[] out = new byte[value.length()];
    int n = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%' && i + 2 < value.length()) {
        int hi = Character.digit(value.charAt(i + 1), 16);
        int lo = Character.digit(value.charAt(i + 2), 16);
        if (hi >= 0 && lo >= 0) {
          out[n++] = (byte) (hi << 4 | lo);
          i += 2;
          continue;
        }
      }
      out[n++] = (byte) c;
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }

  private static String cut(String message) {
    if (message == null) {
      return "";
    }
    if (message.length() * 3 <= MAX_MESSAGE_BYTES) {
      return message;
    }
    byte[] b = message.getBytes(StandardCharsets.UTF_8);
    if (b.length <= MAX_MESSAGE_BYTES) {
      return message;
    }
    String s = new String(b, 0, MAX_MESSAGE_BYTES, StandardCharsets.UTF_8);
    // A cut inside a multi-byte character leaves a replacement character at the end: drop it.
    return s.endsWith("\uFFFD") ? s.substring(0, s.length() - 1) : s;
  }

  /**
   * Parses an {@code rsocket-status} value: a decimal or {@code 0x} hex RSocket error code, 0 for
   * success; -1 if malformed.
   */
  static long parseStatus(CharSequence value) {
    if (value == null || value.length() == 0 || value.length() > 12) {
      return -1;
    }
    return parseCode(value.toString());
  }

  /** An RSocket error code written in decimal or {@code 0x} hex (blanks around it allowed); -1 if not one. */
  private static long parseCode(String text) {
    String s = text.trim();
    try {
      long v =
          s.startsWith("0x") || s.startsWith("0X") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
      return v >= 0 && v <= 0xFFFFFFFFL ? v : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
