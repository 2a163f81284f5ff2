package io.sluice.transport.websocket.internal;

import io.netty.buffer.ByteBuf;

/** RFC 6455 frame layout: opcodes, close codes, header encoding and (un)masking. */
final class WebSocketFrames {
  private WebSocketFrames() {}

  static final int OP_CONTINUATION = 0x0;
  static final int OP_TEXT = 0x1;
  static final int OP_BINARY = 0x2;
  static final int OP_CLOSE = 0x8;
  static final int OP_PING = 0x9;
  static final int OP_PONG = 0xA;

  static final int FIN = 0x80;
  static final int RSV1 = 0x40;

  static final int CLOSE_NORMAL = 1000;
  static final int CLOSE_GOING_AWAY = 1001;
  static final int CLOSE_NO_STATUS = 1005;
  static final int CLOSE_ABNORMAL = 1006;

  /** Largest payload of a control frame (close, ping, pong). */
  static final int MAX_CONTROL_PAYLOAD = 125;

  /** May {@code code} be sent in a close frame (RFC 6455 7.4)? */
  static boolean sendable(int code) {
    return code >= 1000
        && code < 5000
        && code != 1004
        && code != CLOSE_NO_STATUS
        && code != CLOSE_ABNORMAL
        && code != 1015
        && (code < 1016 || code >= 3000);
  }

  /** Bytes of the header of a frame with {@code length} bytes of payload. */
  static int headerSize(int length, boolean masked) {
    int size = length < 126 ? 2 : length < 65536 ? 4 : 10;
    return masked ? size + 4 : size;
  }

  /** Writes a frame header; {@code masked}: the 4-byte {@code mask} key follows the length. */
  static void writeHeader(ByteBuf out, int firstByte, int length, boolean masked, int mask) {
    out.writeByte(firstByte);
    int maskBit = masked ? 0x80 : 0;
    if (length < 126) {
      out.writeByte(maskBit | length);
    } else if (length < 65536) {
      out.writeByte(maskBit | 126);
      out.writeShort(length);
    } else {
      out.writeByte(maskBit | 127);
      out.writeLong(length);
    }
    if (masked) {
      out.writeInt(mask);
    }
  }

  /**
   * XORs {@code length} bytes of {@code buf} from {@code index} with {@code mask}, in place: masks
   * or unmasks (the same operation).
   */
  static void mask(ByteBuf buf, int index, int length, int mask) {
    long m = ((long) mask << 32) | (mask & 0xFFFFFFFFL);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      buf.setLong(index + i, buf.getLong(index + i) ^ m);
    }
    if (i + 4 <= length) { // small frames are most of them: one int, not four bytes
      buf.setInt(index + i, buf.getInt(index + i) ^ mask);
      i += 4;
    }
    for (; i < length; i++) {
      buf.setByte(index + i, buf.getByte(index + i) ^ (mask >>> (24 - 8 * (i & 3))));
    }
  }

  /** Appends the readable bytes of {@code src} to {@code dst} XORed with {@code mask}. */
  static void writeMasked(ByteBuf dst, ByteBuf src, int mask) {
    int length = src.readableBytes();
    int from = src.readerIndex();
    dst.ensureWritable(length);
    int to = dst.writerIndex();
    long m = ((long) mask << 32) | (mask & 0xFFFFFFFFL);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      dst.setLong(to + i, src.getLong(from + i) ^ m);
    }
    if (i + 4 <= length) {
      dst.setInt(to + i, src.getInt(from + i) ^ mask);
      i += 4;
    }
    for (; i < length; i++) {
      dst.setByte(to + i, src.getByte(from + i) ^ (mask >>> (24 - 8 * (i & 3))));
    }
    dst.writerIndex(to + length);
  }

  /**
   * Why the frame starting with {@code b0 b1} breaks RFC 6455 for an endpoint that expects
   * {@code expectMasked} frames and accepts RSV1 on data frames when {@code rsv1Allowed}; null if
   * it does not.
   */
  static String violation(int b0, int b1, boolean expectMasked, boolean rsv1Allowed) {
    int opcode = b0 & 0x0F;
    boolean masked = (b1 & 0x80) != 0;
    if (masked != expectMasked) {
      return expectMasked
          ? "unmasked frame from a client (RFC 6455 requires clients to mask)"
          : "masked frame from a server (RFC 6455 forbids servers to mask)";
    }
    int rsv = b0 & 0x70;
    boolean dataStart = opcode == OP_BINARY || opcode == OP_TEXT;
    if (rsv != 0 && !(rsv == RSV1 && rsv1Allowed && dataStart)) {
      return "reserved bits set without a negotiated extension";
    }
    switch (opcode) {
      case OP_CONTINUATION:
      case OP_TEXT:
      case OP_BINARY:
        return null;
      case OP_CLOSE:
      case OP_PING:
      case OP_PONG:
        if ((b0 & FIN) == 0) {
          return "fragmented control frame";
        }
        if ((b1 & 0x7F) > MAX_CONTROL_PAYLOAD) {
          return "control frame longer than 125 bytes";
        }
        return null;
      default:
        return "unknown opcode " + opcode;
    }
  }
}
