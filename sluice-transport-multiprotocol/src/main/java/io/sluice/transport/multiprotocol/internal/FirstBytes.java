package io.sluice.transport.multiprotocol.internal;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Tells from a connection's first bytes which protocol it speaks, without consuming them. Each
 * protocol is recognised by a prefix that no other one can start with, so the answer is certain
 * as soon as it is given, and at most {@link #MAX_BYTES} bytes are ever needed:
 *
 * <ul>
 *   <li>RSocket over a byte stream: a u24 frame length (at least a frame header's 6 bytes), then
 *       stream id 0 and frame type SETUP (0x01) or RESUME (0x0D); 8 bytes. Bytes 3 to 6 are zero,
 *       which none of the others has.
 *   <li>TLS: a handshake record (0x16), version 0x03 0x00..0x04, a non-empty length, and the
 *       handshake type ClientHello (0x01); 6 bytes.
 *   <li>HTTP/2 with prior knowledge: the whole client preface {@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n};
 *       24 bytes.
 *   <li>HTTP/1.x: a request line's method (one of RFC 9110's, {@code PATCH} too) and its space;
 *       at most 8 bytes. The request itself is then read by an HTTP decoder with its own limits.
 * </ul>
 *
 * Anything else is {@link Protocol#UNKNOWN} as soon as its bytes fit none of these prefixes.
 */
public final class FirstBytes {
  private FirstBytes() {}

  /** What the bytes so far say. */
  public enum Protocol {
    /** Still a prefix of more than one, or of one not complete yet: read more. */
    UNDECIDED,
    RSOCKET,
    TLS,
    HTTP1,
    HTTP2,
    /** A prefix of none: garbage. */
    UNKNOWN
  }

  /** The most bytes a decision needs: the HTTP/2 preface's length. */
  public static final int MAX_BYTES = 24;

  private static final byte[] H2_PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[][] METHODS = methods(
      "GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "CONNECT ", "OPTIONS ", "TRACE ", "PATCH ");

  private static final int RSOCKET_SETUP = 0x01;
  private static final int RSOCKET_RESUME = 0x0D;
  private static final int RSOCKET_HEADER = 6;

  private static final int NO = 0;
  private static final int MAYBE = 1;
  private static final int YES = 2;

  static {
    assert H2_PREFACE.length == MAX_BYTES;
  }

  private static byte[][] methods(String... names) {
    byte[][] m = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      m[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }
    return m;
  }

  /**
   * What the readable bytes of {@code in} (not consumed) say; {@code tls} false leaves TLS out
   * (bytes already decrypted: TLS inside TLS is garbage).
   */
  public static Protocol detect(ByteBuf in, boolean tls) {
    int rsocket = rsocket(in);
    int h2 = prefix(in, H2_PREFACE);
    int http1 = http1(in);
    int record = tls ? tls(in) : NO;
    if (rsocket == YES) {
      return Protocol.RSOCKET;
    }
    if (record == YES) {
      return Protocol.TLS;
    }
    if (h2 == YES) {
      return Protocol.HTTP2;
    }
    if (http1 == YES) {
      return Protocol.HTTP1;
    }
    return (rsocket | record | h2 | http1) == NO ? Protocol.UNKNOWN : Protocol.UNDECIDED;
  }

  private static int rsocket(ByteBuf in) {
    int n = in.readableBytes();
    int r = in.readerIndex();
    if (n >= 3 && in.getUnsignedMedium(r) < RSOCKET_HEADER) {
      return NO;
    }
    for (int i = 3; i < Math.min(n, 7); i++) {
      if (in.getByte(r + i) != 0) {
        return NO; // stream id 0: the connection's first frame
      }
    }
    if (n < 8) {
      return MAYBE;
    }
    int type = (in.getUnsignedByte(r + 7) >>> 2);
    return type == RSOCKET_SETUP || type == RSOCKET_RESUME ? YES : NO;
  }

  private static int tls(ByteBuf in) {
    int n = in.readableBytes();
    int r = in.readerIndex();
    if (n >= 1 && in.getUnsignedByte(r) != 0x16) {
      return NO; // handshake record
    }
    if (n >= 2 && in.getUnsignedByte(r + 1) != 0x03) {
      return NO;
    }
    if (n >= 3 && in.getUnsignedByte(r + 2) > 0x04) {
      return NO;
    }
    if (n >= 5 && in.getUnsignedShort(r + 3) == 0) {
      return NO;
    }
    if (n < 6) {
      return MAYBE;
    }
    return in.getUnsignedByte(r + 5) == 0x01 ? YES : NO; // ClientHello
  }

  private static int http1(ByteBuf in) {
    int best = NO;
    for (byte[] method : METHODS) {
      best = Math.max(best, prefix(in, method));
    }
    return best;
  }

  /** YES when {@code in} starts with {@code expected}, MAYBE when it is a shorter prefix of it. */
  private static int prefix(ByteBuf in, byte[] expected) {
    int n = Math.min(in.readableBytes(), expected.length);
    int r = in.readerIndex();
    for (int i = 0; i < n; i++) {
      if (in.getByte(r + i) != expected[i]) {
        return NO;
      }
    }
    return n == expected.length ? YES : MAYBE;
  }
}
