package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The copy a payload takes into the batch buffer when netty runs without {@code Unsafe} (JDK 24+):
 * a long at a time, then the tail byte by byte. Run on every JDK through {@code copyWords}, since
 * JDK 17 takes netty's own copy.
 */
class PayloadCopyTest {

  @Test
  void copiesEveryLengthAndOffsetExactlyFromEveryKindOfBuffer() {
    ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    List<IntFunction<ByteBuf>> sources = new ArrayList<>();
    sources.add(n -> alloc.directBuffer(n + 16));
    sources.add(n -> alloc.heapBuffer(n + 16));
    sources.add(n -> ByteBufAllocator.DEFAULT.ioBuffer(n + 16));
    sources.add(
        n -> {
          CompositeByteBuf c = alloc.compositeBuffer();
          c.addComponent(true, alloc.directBuffer(3 + n / 2));
          c.addComponent(true, alloc.heapBuffer(n + 16));
          c.writerIndex(0);
          return c;
        });
    for (IntFunction<ByteBuf> source : sources) {
      for (int length = 0; length <= 40; length++) {
        for (int offset = 0; offset < 9; offset++) {
          ByteBuf src = source.apply(length + offset);
          ByteBuf out = alloc.directBuffer(4);
          try {
            src.writerIndex(0);
            for (int i = 0; i < offset + length; i++) {
              src.writeByte(i * 31 + length);
            }
            src.readerIndex(offset);
            out.writeByte(0x7f); // the copy appends after what is there
            Frames.copyWords(out, src, src.readableBytes());
            assertThat(out.readableBytes()).isEqualTo(1 + length);
            assertThat(out.getByte(0)).isEqualTo((byte) 0x7f);
            assertThat(out.slice(1, length)).isEqualTo(src.slice(offset, length));
            assertThat(src.readerIndex()).isEqualTo(offset); // the source is not consumed
          } finally {
            src.release();
            out.release();
          }
        }
      }
    }
  }

  @Test
  void writePayloadCarriesMetadataAndDataOfEverySizeUpToAndBeyondTheWordLimit() {
    for (int size : new int[] {0, 1, 7, 8, 9, 128, 511, 512, 513, 2048}) {
      byte[] md = new byte[size / 3];
      byte[] data = new byte[size];
      for (int i = 0; i < size; i++) {
        data[i] = (byte) (i * 7);
      }
      for (int i = 0; i < md.length; i++) {
        md[i] = (byte) (i * 13 + 1);
      }
      ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer();
      ByteBuf m = Unpooled.directBuffer().writeBytes(md);
      ByteBuf d = Unpooled.directBuffer().writeBytes(data);
      try {
        Frames.writePayload(out, m, d);
        assertThat(Frames.getU24(out, 0)).isEqualTo(md.length);
        assertThat(out.slice(3, md.length)).isEqualTo(Unpooled.wrappedBuffer(md));
        assertThat(out.slice(3 + md.length, size)).isEqualTo(Unpooled.wrappedBuffer(data));
        assertThat(out.readableBytes()).isEqualTo(3 + md.length + size);
      } finally {
        out.release();
        m.release();
        d.release();
      }
    }
  }
}
