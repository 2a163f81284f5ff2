package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * The deframer's own copy chunk, emptied by reading, stays queued; a large input added after it
 * (kept as a slice) used to leave it at the head, and the next read failed with an
 * IndexOutOfBoundsException (seen by the gRPC client on a server stream of 256 KiB messages).
 */
class MessageDeframerChunksTest {
  @Test
  void aLargeInputAfterAnEmptiedCopyChunkIsRead() {
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    try {
      ByteBuf small = Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 0, 2, 7, 8}); // copied: < 2 KiB
      d.add(small);
      small.release();
      ByteBuf first = d.next();
      assertThat(ByteBufUtil.getBytes(first)).containsExactly(7, 8);
      first.release();

      byte[] body = new byte[5000];
      body[0] = 42;
      ByteBuf large = Unpooled.buffer(5005).writeByte(0).writeInt(body.length).writeBytes(body); // sliced
      d.add(large);
      large.release();
      ByteBuf second = d.next();
      assertThat(second.readableBytes()).isEqualTo(5000);
      assertThat(second.getByte(0)).isEqualTo((byte) 42);
      second.release();
      assertThat(d.buffered()).isZero();
      assertThat(d.takeConsumed()).isEqualTo(7 + 5005);
    } finally {
      d.close();
    }
  }
}
