package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A message longer than the deframer's chunk is gathered from the buffers its bytes lie in, not
 * copied into one buffer of its own: a 128 KiB response in 16 KiB DATA frames would otherwise be
 * copied about three times over (once, and again each time the growing buffer doubles).
 */
class MessageDeframerGatherTest {
  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + (i >>> 8));
    }
    return b;
  }

  private static ByteBuf framed(byte[] body) {
    return Unpooled.buffer(body.length + 5).writeByte(0).writeInt(body.length).writeBytes(body);
  }

  private static void assertBytes(ByteBuf out, byte[] body) {
    assertThat(out.readableBytes()).isEqualTo(body.length);
    byte[] got = new byte[body.length];
    out.getBytes(out.readerIndex(), got);
    assertThat(got).isEqualTo(body);
  }

  @Test
  void aLongMessageInPiecesThatFillTheirBuffersKeepsThoseBuffersInsteadOfACopy() {
    byte[] body = pattern((128 << 10) - 5); // with its prefix, eight reads of 16 KiB
    ByteBuf wire = framed(body);
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    List<ByteBuf> reads = new ArrayList<>();
    try {
      while (wire.isReadable()) {
        int n = Math.min(16 << 10, wire.readableBytes());
        ByteBuf read = Unpooled.directBuffer(n, n).writeBytes(wire, n); // a DATA payload filling its read
        reads.add(read);
        d.add(read);
        read.release(); // the transport is done with it
      }
      ByteBuf out = d.next();
      assertThat(out).isNotNull();
      assertBytes(out, body);
      // Every read buffer is held by the message: its bytes were not copied out of it.
      assertThat(reads).hasSize(8);
      for (ByteBuf read : reads) {
        assertThat(read.refCnt()).as("a read buffer holding message bytes").isEqualTo(1);
      }
      out.release();
      for (ByteBuf read : reads) {
        assertThat(read.refCnt()).as("released with the message").isZero();
      }
      assertThat(d.next()).isNull();
    } finally {
      d.close();
      wire.release();
    }
  }

  @Test
  void aLongMessageInSmallPiecesReadsBackWholeAndTheNextMessageFollows() {
    byte[] first = pattern(40_000);
    byte[] second = pattern(100);
    ByteBuf wire = Unpooled.buffer().writeBytes(framed(first)).writeBytes(framed(second));
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    try {
      // Small DATA payloads (copied into the deframer's chunks), one of 3000 and one large.
      int[] sizes = {700, 1, 3000, 1500, 20_000};
      int i = 0;
      List<ByteBuf> out = new ArrayList<>();
      while (wire.isReadable()) {
        int n = Math.min(sizes[i++ % sizes.length], wire.readableBytes());
        ByteBuf piece = Unpooled.buffer(n, n).writeBytes(wire, n);
        d.add(piece);
        piece.release();
        for (ByteBuf m; (m = d.next()) != null; ) {
          out.add(m);
        }
      }
      assertThat(out).hasSize(2);
      assertBytes(out.get(0), first);
      assertBytes(out.get(1), second);
      out.forEach(ByteBuf::release);
      assertThat(d.buffered()).isZero();
      assertThat(d.isMidMessage()).isFalse();
    } finally {
      d.close();
      wire.release();
    }
  }

  @Test
  void aLongMessageCutShortIsReleasedOnClose() {
    byte[] body = pattern(64 << 10);
    ByteBuf wire = framed(body);
    ByteBuf read = Unpooled.directBuffer(30_000, 30_000).writeBytes(wire, 30_000);
    MessageDeframer d = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, GrpcEncoding.IDENTITY);
    try {
      d.add(read);
      assertThat(d.next()).isNull();
      assertThat(d.isMidMessage()).isTrue();
      read.release();
      assertThat(read.refCnt()).as("held by the message being read").isEqualTo(1);
      d.close();
      assertThat(read.refCnt()).as("the unfinished message is released").isZero();
    } finally {
      wire.release();
      if (read.refCnt() > 0) {
        read.release(read.refCnt());
      }
    }
  }
}
