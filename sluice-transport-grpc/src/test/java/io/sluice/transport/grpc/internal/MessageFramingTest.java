package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class MessageFramingTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static ByteBuf frame(byte[] msg, GrpcEncoding enc) {
    return MessageFramer.frame(ALLOC, Unpooled.wrappedBuffer(msg), enc);
  }

  private static byte[] drain(ByteBuf b) {
    try {
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  private static Status.Code codeOf(Runnable r) {
    try {
      r.run();
    } catch (StatusException e) {
      return e.status().code();
    }
    return Status.Code.OK;
  }

  @Test
  void framesWithTheFiveBytePrefix() {
    byte[] wire = drain(frame(new byte[] {7, 8, 9}, GrpcEncoding.IDENTITY));
    assertThat(wire).containsExactly(0, 0, 0, 0, 3, 7, 8, 9);
    byte[] empty = drain(frame(new byte[0], GrpcEncoding.IDENTITY));
    assertThat(empty).containsExactly(0, 0, 0, 0, 0);
    byte[] big = bytes(100_000, 1);
    byte[] bigWire = drain(frame(big, GrpcEncoding.IDENTITY));
    assertThat(bigWire).hasSize(100_005);
    assertThat(bigWire[3] & 0xFF).isEqualTo(100_000 >> 8 & 0xFF);
  }

  /**
   * Into direct buffers, heap buffers and a heap buffer's slice (its array at an offset), on a
   * netty thread (small messages into a direct buffer go through the scratch array there) and on
   * an ordinary one: the bytes are protobuf's behind a big-endian prefix, around the scratch
   * boundary and past 64 KiB too, and a wrong size leaves the buffer as it was.
   */
  @Test
  void encodesIntoEveryKindOfBufferOnEveryThreadAlike() throws Exception {
    List<Throwable> failures = new ArrayList<>();
    Runnable check =
        () -> {
          try {
            for (int n : new int[] {0, 1, 127, MessageFramer.SCRATCH - 3, MessageFramer.SCRATCH - 2, MessageFramer.SCRATCH + 10, 70_000}) {
              com.google.protobuf.BytesValue m =
                  com.google.protobuf.BytesValue.of(com.google.protobuf.ByteString.copyFrom(bytes(n, n)));
              int size = m.getSerializedSize();
              byte[] expected = new byte[1 + MessageFramer.PREFIX + size];
              expected[0] = 42;
              expected[2] = (byte) (size >> 24);
              expected[3] = (byte) (size >> 16);
              expected[4] = (byte) (size >> 8);
              expected[5] = (byte) size;
              System.arraycopy(m.toByteArray(), 0, expected, 1 + MessageFramer.PREFIX, size);
              ByteBuf heap = ALLOC.heapBuffer(256 * 1024);
              ByteBuf[] outs = {
                ALLOC.directBuffer(64, 256 * 1024), ALLOC.heapBuffer(64, 256 * 1024), heap.writerIndex(17).slice(17, 200 * 1024)
              };
              for (ByteBuf out : outs) {
                try (AutoCloseable done = () -> (out == outs[2] ? heap : out).release()) {
                  out.writerIndex(0).writeByte(42);
                  out.ensureWritable(2 * (MessageFramer.PREFIX + size) + 1); // the caller's part
                  MessageFramer.encodeInto(out, m, size);
                  assertThat(ByteBufUtil.getBytes(out)).as("size %d into %s", size, out).isEqualTo(expected);
                  int before = out.writerIndex();
                  assertThat(codeOf(() -> MessageFramer.encodeInto(out, m, size - 1))).isEqualTo(Status.Code.INTERNAL);
                  assertThat(codeOf(() -> MessageFramer.encodeInto(out, m, size + 1))).isEqualTo(Status.Code.INTERNAL);
                  assertThat(out.writerIndex()).isEqualTo(before);
                }
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        };
    Thread netty =
        new io.netty.util.concurrent.FastThreadLocalThread(
            () -> {
              if (!io.netty.util.concurrent.FastThreadLocalThread.currentThreadHasFastThreadLocal()) {
                failures.add(new AssertionError("not a netty thread"));
              }
              check.run();
            });
    netty.start();
    netty.join();
    Thread plain = new Thread(check);
    plain.start();
    plain.join();
    assertThat(failures).isEmpty();
  }

  /** The buffer grows to what prefix and message need: a caller need not make room first. */
  @Test
  void encodesIntoABufferThatMustGrow() {
    com.google.protobuf.BytesValue m = com.google.protobuf.BytesValue.of(com.google.protobuf.ByteString.copyFrom(bytes(500, 5)));
    int size = m.getSerializedSize();
    for (ByteBuf out : new ByteBuf[] {ALLOC.heapBuffer(1, 1 << 20), ALLOC.directBuffer(1, 1 << 20)}) {
      try {
        MessageFramer.encodeInto(out, m, size);
        byte[] expected = new byte[MessageFramer.PREFIX + size];
        expected[3] = (byte) (size >> 8);
        expected[4] = (byte) size;
        System.arraycopy(m.toByteArray(), 0, expected, MessageFramer.PREFIX, size);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(expected);
      } finally {
        out.release();
      }
    }
  }

  @Test
  void encodesWithRoomAroundTheMessage() {
    com.google.protobuf.StringValue m = com.google.protobuf.StringValue.of("hello");
    byte[] plain = drain(MessageFramer.encode(ALLOC, m));
    ByteBuf roomy = MessageFramer.encode(ALLOC, m, 23, 11);
    try {
      assertThat(roomy.readerIndex()).isEqualTo(23);
      assertThat(roomy.writableBytes()).isEqualTo(11);
      assertThat(roomy.maxWritableBytes()).isEqualTo(11);
    } finally {
      assertThat(drain(roomy)).isEqualTo(plain).startsWith(0, 0, 0, 0, 7);
    }
  }

  @Test
  void deframesMessagesSplitAnywhereIdentityAndGzip() {
    for (GrpcEncoding enc : GrpcEncoding.values()) {
      List<byte[]> msgs = List.of(new byte[0], bytes(1, 2), bytes(5000, 3), bytes(70_000, 4), new byte[0]);
      ByteBuf all = Unpooled.buffer();
      for (byte[] m : msgs) {
        ByteBuf f = frame(m, enc);
        all.writeBytes(f);
        f.release();
      }
      MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, enc);
      List<byte[]> out = new ArrayList<>();
      Random r = new Random(5);
      long consumed = 0;
      while (all.isReadable()) {
        ByteBuf piece = all.readSlice(Math.min(all.readableBytes(), 1 + r.nextInt(3000)));
        d.add(piece);
        for (ByteBuf m; (m = d.next()) != null; ) {
          out.add(drain(m));
        }
        consumed += d.takeConsumed();
      }
      all.release();
      assertThat(out).as(enc.name()).hasSize(msgs.size());
      for (int i = 0; i < msgs.size(); i++) {
        assertThat(out.get(i)).as(enc + " message " + i).isEqualTo(msgs.get(i));
      }
      assertThat(consumed).isEqualTo(all.writerIndex());
      assertThat(d.isMidMessage()).isFalse();
      assertThat(d.buffered()).isZero();
      d.close();
    }
  }

  @Test
  void bytesStayUnconsumedUntilAMessageIsAskedFor() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY);
    ByteBuf f = frame(bytes(1000, 6), GrpcEncoding.IDENTITY);
    d.add(f);
    f.release();
    assertThat(d.buffered()).isEqualTo(1005);
    assertThat(d.takeConsumed()).isZero();
    ByteBuf m = d.next();
    assertThat(m.readableBytes()).isEqualTo(1000);
    m.release();
    assertThat(d.takeConsumed()).isEqualTo(1005);
    assertThat(d.buffered()).isZero();
    d.close();
  }

  @Test
  void aMessageLargerThanItsInputSoFarIsConsumedAsItArrives() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY);
    ByteBuf f = frame(bytes(500_000, 7), GrpcEncoding.IDENTITY);
    d.add(f.readSlice(100_000));
    assertThat(d.next()).isNull();
    assertThat(d.takeConsumed()).isEqualTo(100_000);
    assertThat(d.isMidMessage()).isTrue();
    d.add(f.readSlice(f.readableBytes()));
    f.release();
    ByteBuf m = d.next();
    assertThat(m.readableBytes()).isEqualTo(500_000);
    m.release();
    d.close();
  }

  @Test
  void refusesOversizeBeforeReadingTheBody() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1000, GrpcEncoding.IDENTITY);
    ByteBuf prefix = Unpooled.buffer().writeByte(0).writeInt(1001);
    d.add(prefix);
    prefix.release();
    assertThat(codeOf(d::next)).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    d.close();
  }

  @Test
  void badFlagsAndCompressedWithoutEncodingAreInternal() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1000, GrpcEncoding.IDENTITY);
    ByteBuf bad = Unpooled.buffer().writeByte(2).writeInt(0);
    d.add(bad);
    bad.release();
    assertThat(codeOf(d::next)).isEqualTo(Status.Code.INTERNAL);

    MessageDeframer d2 = new MessageDeframer(ALLOC, 1000, GrpcEncoding.IDENTITY);
    ByteBuf flagged = Unpooled.buffer().writeByte(1).writeInt(0);
    d2.add(flagged);
    flagged.release();
    assertThat(codeOf(d2::next)).isEqualTo(Status.Code.INTERNAL);

    MessageDeframer d3 = new MessageDeframer(ALLOC, 1000, GrpcEncoding.GZIP);
    ByteBuf notGzip = Unpooled.buffer().writeByte(1).writeInt(3).writeBytes(new byte[] {1, 2, 3});
    d3.add(notGzip);
    notGzip.release();
    assertThat(codeOf(d3::next)).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void aGzipBombStopsAtTheLimit() throws Exception {
    // 64 MiB of zeros compress to about 64 KiB; the limit is 1 MiB.
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(compressed)) {
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i < 64; i++) {
        gz.write(zeros);
      }
    }
    byte[] c = compressed.toByteArray();
    assertThat(c.length).isLessThan(1 << 20);
    ByteBuf wire = Unpooled.buffer().writeByte(1).writeInt(c.length).writeBytes(c);
    MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.GZIP);
    d.add(wire);
    wire.release();
    assertThat(codeOf(d::next)).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    d.close();
  }

  @Test
  void aGzipMessageAtTheLimitPasses() {
    byte[] msg = new byte[4096];
    ByteBuf f = frame(msg, GrpcEncoding.GZIP);
    MessageDeframer d = new MessageDeframer(ALLOC, 4096, GrpcEncoding.GZIP);
    d.add(f);
    f.release();
    assertThat(drain(d.next())).isEqualTo(msg);
    d.close();
  }

  @Test
  void closeReleasesWhatIsHeld() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY);
    ByteBuf f = frame(bytes(50_000, 8), GrpcEncoding.IDENTITY);
    d.add(f.readSlice(30_000));
    assertThat(d.next()).isNull();
    d.add(f.readSlice(10_000));
    f.release();
    d.close();
    d.close();
    assertThat(d.next()).isNull();
  }

  @Test
  void encodingNames() {
    assertThat(GrpcEncoding.of(null)).isEqualTo(GrpcEncoding.IDENTITY);
    assertThat(GrpcEncoding.of("identity")).isEqualTo(GrpcEncoding.IDENTITY);
    assertThat(GrpcEncoding.of("gzip")).isEqualTo(GrpcEncoding.GZIP);
    assertThat(GrpcEncoding.of("br")).isNull();
    assertThat(GrpcEncoding.GZIP.acceptedBy("identity, gzip")).isTrue();
    assertThat(GrpcEncoding.GZIP.acceptedBy("deflate")).isFalse();
    assertThat(GrpcEncoding.GZIP.acceptedBy(null)).isFalse();
    assertThatThrownBy(() -> new MessageDeframer(ALLOC, -1, GrpcEncoding.IDENTITY))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
