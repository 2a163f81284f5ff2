package io.sluice.transport.websocket.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

/**
 * RFC 6455 frame layout: opcodes, close codes, header encoding and (un)masking. Shared with
 * WebSocket over HTTP/2 (sluice-transport-http2), hence public; internal, not an API.
 */
public final class WebSocketFrames {
  private WebSocketFrames() {}

  public static final int OP_CONTINUATION = 0x0;
  public static final int OP_TEXT = 0x1;
  public static final int OP_BINARY = 0x2;
  public static final int OP_CLOSE = 0x8;
  public static final int OP_PING = 0x9;
  public static final int OP_PONG = 0xA;

  public static final int FIN = 0x80;
  public static final int RSV1 = 0x40;

  public static final int CLOSE_NORMAL = 1000;
  public static final int CLOSE_GOING_AWAY = 1001;
  public static final int CLOSE_NO_STATUS = 1005;
  public static final int CLOSE_ABNORMAL = 1006;

  /** Largest payload of a control frame (close, ping, pong). */
  public static final int MAX_CONTROL_PAYLOAD = 125;

  /** May {@code code} be sent in a close frame (RFC 6455 7.4)? */
  public static boolean sendable(int code) {
    return code >= 1000
        && code < 5000
        && code != 1004
        && code != CLOSE_NO_STATUS
        && code != CLOSE_ABNORMAL
        && code != 1015
        && (code < 1016 || code >= 3000);
  }

  /** Bytes of the header of a frame with {@code length} bytes of payload. */
  public static int headerSize(int length, boolean masked) {
    int size = length < 126 ? 2 : length < 65536 ? 4 : 10;
    return masked ? size + 4 : size;
  }

  /** Writes a frame header; {@code masked}: the 4-byte {@code mask} key follows the length. */
  public static void writeHeader(ByteBuf out, int firstByte, int length, boolean masked, int mask) {
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
   * Lengths from which masking goes through the buffer's NIO view: one access check (and, under
   * netty's paranoid leak detection, one recorded access) per frame instead of one per 8 bytes.
   */
  private static final int BULK = 256;

  /**
   * XORs {@code length} bytes of {@code buf} from {@code index} with {@code mask}, in place: masks
   * or unmasks (the same operation).
   */
  public static void mask(ByteBuf buf, int index, int length, int mask) {
    if (length >= BULK && buf.nioBufferCount() == 1) {
      ByteBuffer view = buf.nioBuffer(index, length);
      if (!view.isReadOnly()) {
        view.order(ByteOrder.BIG_ENDIAN);
        xor(view, view.position(), view, view.position(), length, mask);
        return;
      }
    }
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

  /** {@code dst[to + i] = src[from + i] ^ mask} for {@code length} bytes (views may be the same). */
  private static void xor(ByteBuffer src, int from, ByteBuffer dst, int to, int length, int mask) {
    long m = ((long) mask << 32) | (mask & 0xFFFFFFFFL);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      dst.putLong(to + i, src.getLong(from + i) ^ m);
    }
    if (i + 4 <= length) {
      dst.putInt(to + i, src.getInt(from + i) ^ mask);
      i += 4;
    }
    for (; i < length; i++) {
      dst.put(to + i, (byte) (src.get(from + i) ^ (mask >>> (24 - 8 * (i & 3)))));
    }
  }

  /** Appends the readable bytes of {@code src} to {@code dst} XORed with {@code mask}. */
  public static void writeMasked(ByteBuf dst, ByteBuf src, int mask) {
    int length = src.readableBytes();
    int from = src.readerIndex();
    dst.ensureWritable(length);
    int to = dst.writerIndex();
    if (length >= BULK && src.nioBufferCount() == 1 && dst.nioBufferCount() == 1) {
      ByteBuffer out = dst.nioBuffer(to, length);
      if (!out.isReadOnly()) {
        ByteBuffer in = src.nioBuffer(from, length).order(ByteOrder.BIG_ENDIAN);
        out.order(ByteOrder.BIG_ENDIAN);
        xor(in, in.position(), out, out.position(), length, mask);
        dst.writerIndex(to + length);
        return;
      }
    }
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
  public static String violation(int b0, int b1, boolean expectMasked, boolean rsv1Allowed) {
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

  /**
   * A whole unfragmented frame in a new buffer: {@code firstByte} (FIN and opcode), then {@code
   * payload} (not released), masked with a fresh random key when {@code masked} (a client's).
   */
  public static ByteBuf frame(ByteBufAllocator alloc, int firstByte, ByteBuf payload, boolean masked) {
    int len = payload.readableBytes();
    ByteBuf out = alloc.buffer(headerSize(len, masked) + len);
    if (masked) {
      int mask = ThreadLocalRandom.current().nextInt();
      writeHeader(out, firstByte, len, true, mask);
      writeMasked(out, payload, mask);
    } else {
      writeHeader(out, firstByte, len, false, 0);
      out.writeBytes(payload, payload.readerIndex(), len);
    }
    return out;
  }
}
