package io.sluice.transport.websocket.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Masking gives the bytes RFC 6455 5.3 defines (byte i XOR key byte i mod 4) whichever way it
 * goes: small lengths byte by byte, long ones through the buffer's NIO view, and buffers of
 * several components, heap or direct, at any offset.
 */
class WebSocketFramesTest {
  private static final int KEY = 0x37FA213D;

  private static byte[] expected(byte[] in) {
    byte[] out = new byte[in.length];
    for (int i = 0; i < in.length; i++) {
      out[i] = (byte) (in[i] ^ (KEY >>> (24 - 8 * (i & 3))));
    }
    return out;
  }

  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  private static List<ByteBuf> buffers(byte[] bytes) {
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    int half = bytes.length / 2;
    composite.addComponent(true, Unpooled.buffer(half + 3).writeByte(0).writeBytes(bytes, 0, half).skipBytes(1));
    composite.addComponent(true, Unpooled.directBuffer(bytes.length - half).writeBytes(bytes, half, bytes.length - half));
    ByteBuf heap = Unpooled.buffer(bytes.length + 5).writerIndex(5).writeBytes(bytes).readerIndex(5);
    ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length + 3).writerIndex(3).writeBytes(bytes).readerIndex(3);
    return List.of(heap, direct, composite);
  }

  @Test
  void maskInPlaceAtEveryLengthAndKind() {
    for (int n : new int[] {0, 1, 3, 4, 7, 8, 9, 255, 256, 257, 1003, 65536 + 5}) {
      byte[] in = pattern(n);
      for (ByteBuf b : buffers(in)) {
        try {
          WebSocketFrames.mask(b, b.readerIndex(), n, KEY);
          assertThat(ByteBufUtil.getBytes(b)).as("%d bytes in %s", n, b).isEqualTo(expected(in));
        } finally {
          b.release();
        }
      }
    }
  }

  @Test
  void writeMaskedAtEveryLengthAndKind() {
    for (int n : new int[] {0, 5, 255, 256, 4099}) {
      byte[] in = pattern(n);
      for (ByteBuf src : buffers(in)) {
        ByteBuf dst = PooledByteBufAllocator.DEFAULT.buffer(4).writeByte(0xAB);
        try {
          WebSocketFrames.writeMasked(dst, src, KEY);
          assertThat(dst.readUnsignedByte()).isEqualTo((short) 0xAB);
          assertThat(ByteBufUtil.getBytes(dst)).as("%d bytes from %s", n, src).isEqualTo(expected(in));
          assertThat(src.readableBytes()).as("the source is not consumed").isEqualTo(n);
        } finally {
          src.release();
          dst.release();
        }
      }
    }
  }
}
