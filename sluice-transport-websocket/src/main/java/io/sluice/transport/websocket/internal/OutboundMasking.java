package io.sluice.transport.websocket.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A client's masking (RFC 6455 5.3) of what the protocol core writes on a {@link
 * io.sluice.transport.DuplexTransport.Framing#TRANSPORT_PREFIXED} connection: a byte stream of
 * binary frames, each behind a {@link WebSocketFramePrefix#CLIENT} header whose key is still zero.
 *
 * <p>A buffer that begins with a header is a batch the core filled and gave away: each of its
 * frames gets a fresh random key, written into its header, and is masked in place. A frame with a
 * large payload may end its batch after the header; its payload then comes as the application's
 * own buffers (which may be shared, so they are never changed): they are masked into a copy, with
 * the key of their frame turned to where they start in it.
 *
 * <p>Confined to the connection's event loop. Public for WebSocket over HTTP/2 (internal, not an
 * API).
 */
public final class OutboundMasking {
  /** Payload bytes of the frame begun in an earlier buffer that later buffers carry. */
  private long remaining;
  /** The key for those bytes, turned so that its first byte masks the next one. */
  private int key;

  /**
   * Masks {@code buf} (taken) and returns what to write: {@code buf} itself, masked in place, or a
   * masked copy (and {@code buf} released).
   */
  public ByteBuf mask(ByteBuf buf, ByteBufAllocator alloc) {
    if (remaining > 0) {
      return maskedCopy(buf, alloc);
    }
    int i = buf.readerIndex();
    int end = buf.writerIndex();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (i < end) {
      int len7 = buf.getByte(i + 1) & 0x7F;
      long length;
      int keyIndex;
      if (len7 < 126) {
        length = len7;
        keyIndex = i + 2;
      } else if (len7 == 126) {
        length = buf.getUnsignedShort(i + 2);
        keyIndex = i + 4;
      } else {
        length = buf.getLong(i + 2);
        keyIndex = i + 10;
      }
      int k = random.nextInt();
      buf.setInt(keyIndex, k);
      int payload = keyIndex + 4;
      int n = (int) Math.min(length, end - payload);
      WebSocketFrames.mask(buf, payload, n, k);
      i = payload + n;
      if (n < length) {
        remaining = length - n;
        key = Integer.rotateLeft(k, 8 * (n & 3));
      }
    }
    return buf;
  }

  private ByteBuf maskedCopy(ByteBuf payload, ByteBufAllocator alloc) {
    int n = payload.readableBytes();
    try {
      if (n > remaining) {
        throw new IllegalStateException(
            n + " bytes written where " + remaining + " bytes of a frame's payload were due");
      }
      ByteBuf out = alloc.ioBuffer(n);
      WebSocketFrames.writeMasked(out, payload, key);
      remaining -= n;
      key = Integer.rotateLeft(key, 8 * (n & 3));
      return out;
    } finally {
      payload.release();
    }
  }
}
