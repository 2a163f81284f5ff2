package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * What the deframer keeps of the bytes it was given and nobody asked for yet: a DATA payload is a
 * slice of the read buffer it came in, so keeping it as a slice keeps that whole buffer. A small
 * payload at the end of a large read (the rest of it frames the peer need not count against any
 * window) must not pin the read buffer; a payload that fills most of its buffer may stay a slice.
 */
class MessageDeframerPinningTest {
  /** A 64 KiB read buffer whose last {@code n} bytes are a DATA payload; the payload's slice. */
  private static ByteBuf payloadAtTheEndOfARead(ByteBuf read, int n) {
    read.writerIndex(read.capacity());
    return read.slice(read.capacity() - n, n);
  }

  @Test
  void aSmallPayloadAtTheEndOfALargeReadDoesNotPinTheReadBuffer() {
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    ByteBuf read = Unpooled.directBuffer(64 << 10, 64 << 10);
    try {
      d.add(payloadAtTheEndOfARead(read, 2048)); // at least 2 KiB: it used to be kept as a slice
      read.release(); // the transport is done with its read buffer
      assertThat(read.refCnt()).as("references to the 64 KiB read buffer once the transport released it").isZero();
      assertThat(d.buffered()).isEqualTo(2048);
    } finally {
      d.close();
      if (read.refCnt() > 0) {
        read.release(read.refCnt());
      }
    }
  }

  @Test
  void aPayloadThatFillsMostOfItsReadBufferIsKeptAsASlice() {
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    ByteBuf read = Unpooled.directBuffer(16 << 10, 16 << 10);
    try {
      d.add(payloadAtTheEndOfARead(read, 12 << 10));
      read.release();
      assertThat(read.refCnt()).as("the deframer keeps the read buffer, not a copy").isEqualTo(1);
    } finally {
      d.close();
    }
    assertThat(read.refCnt()).isZero();
  }

  @Test
  void copiedAndSlicedInputsReadBackInOrder() {
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    try {
      byte[] body = new byte[6000];
      for (int i = 0; i < body.length; i++) {
        body[i] = (byte) i;
      }
      ByteBuf message = Unpooled.buffer(6005).writeByte(0).writeInt(body.length).writeBytes(body);
      ByteBuf read = Unpooled.buffer(64 << 10);
      read.writeZero((64 << 10) - 3000).writeBytes(message, 0, 3000); // a copied piece
      d.add(read.slice(read.writerIndex() - 3000, 3000));
      read.release();
      ByteBuf rest = Unpooled.buffer(3005).writeBytes(message, 3000, 3005); // a sliced piece
      d.add(rest);
      rest.release();
      message.release();
      ByteBuf out = d.next();
      assertThat(out.readableBytes()).isEqualTo(body.length);
      for (int i = 0; i < body.length; i++) {
        assertThat(out.getByte(i)).isEqualTo((byte) i);
      }
      out.release();
    } finally {
      d.close();
    }
  }
}
