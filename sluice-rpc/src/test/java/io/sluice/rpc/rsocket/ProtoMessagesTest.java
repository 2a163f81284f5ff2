package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Protobuf messages in and out of buffers: exact-size encoding, parsing from every buffer kind. */
class ProtoMessagesTest {
  private static final BytesValue VALUE = BytesValue.of(ByteString.copyFrom(bytes(300)));
  /** Larger than ProtoMessages.SMALL_MESSAGE: encoded into a buffer of the allocator. */
  private static final BytesValue LARGE = BytesValue.of(ByteString.copyFrom(bytes(ProtoMessages.SMALL_MESSAGE + 100)));

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  @Test
  void encodesExactlyTheSerializedSizeWithThePooledAllocator() {
    assertEncodes(PooledByteBufAllocator.DEFAULT);
  }

  @Test
  void encodesExactlyTheSerializedSizeWithTheUnpooledAllocator() {
    assertEncodes(UnpooledByteBufAllocator.DEFAULT);
  }

  @Test
  void encodesWithAnAllocatorThatOnlyHandsOutDirectBuffers() {
    ByteBufAllocator directOnly =
        new AbstractByteBufAllocator(true) {
          @Override
          protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return Unpooled.directBuffer(initialCapacity, maxCapacity);
          }

          @Override
          protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return Unpooled.directBuffer(initialCapacity, maxCapacity);
          }

          @Override
          public boolean isDirectBufferPooled() {
            return false;
          }
        };
    assertEncodes(directOnly);
  }

  private static void assertEncodes(ByteBufAllocator alloc) {
    for (BytesValue v : new BytesValue[] {VALUE, LARGE}) {
      ByteBuf buf = ProtoMessages.encode(alloc, v);
      try {
        assertThat(buf.readableBytes()).isEqualTo(v.getSerializedSize());
        assertThat(buf.capacity()).isEqualTo(v.getSerializedSize());
        assertThat(ByteBufUtil.getBytes(buf)).isEqualTo(v.toByteArray());
      } finally {
        assertThat(buf.release()).isTrue();
      }
    }
  }

  @Test
  void encodesAnEmptyMessageAsNoBytes() {
    ByteBuf buf = ProtoMessages.encode(PooledByteBufAllocator.DEFAULT, BytesValue.getDefaultInstance());
    try {
      assertThat(buf.readableBytes()).isZero();
    } finally {
      buf.release();
    }
    assertThat(ProtoMessages.parse(BytesValue.parser(), Message.of(Unpooled.EMPTY_BUFFER)))
        .isEqualTo(BytesValue.getDefaultInstance());
  }

  @Test
  void parsesFromAHeapSliceWithAnOffset() {
    byte[] encoded = VALUE.toByteArray();
    byte[] padded = new byte[encoded.length + 20];
    System.arraycopy(encoded, 0, padded, 7, encoded.length);
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.heapBuffer(padded.length).writeBytes(padded);
    try {
      ByteBuf heap = buf.slice(7, encoded.length);
      assertThat(heap.hasArray()).isTrue();
      assertThat(ProtoMessages.parse(BytesValue.parser(), heap)).isEqualTo(VALUE);
      assertThat(buf.refCnt()).as("parse(ByteBuf) only reads").isOne();
    } finally {
      buf.release();
    }
  }

  @Test
  void parsesFromADirectBufferAndOwnsItsBytesAfterTheRelease() {
    ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer();
    direct.writeBytes(VALUE.toByteArray());
    Message m = Message.of(direct);
    BytesValue parsed = ProtoMessages.parse(BytesValue.parser(), m);
    assertThat(m.refCnt()).isZero();
    // The bytes field must not point into the released buffer: reuse the pool's memory.
    ByteBuf reuse = PooledByteBufAllocator.DEFAULT.directBuffer(VALUE.getSerializedSize());
    reuse.writeZero(VALUE.getSerializedSize());
    reuse.release();
    assertThat(parsed).isEqualTo(VALUE);
  }

  @Test
  void parsesSmallAndLargeMessagesFromDirectSlicesAtAnOffset() {
    // A frame's data is a slice of the read buffer; small messages are copied byte by byte from
    // its address, larger ones in one block: both must read exactly the slice.
    for (int n : new int[] {0, 1, 8, 29, 30, 31, 32, 100}) {
      BytesValue v = BytesValue.of(ByteString.copyFrom(bytes(n)));
      byte[] encoded = v.toByteArray();
      ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(encoded.length + 20);
      direct.writeBytes(new byte[] {9, 9, 9, 9, 9, 9, 9}).writeBytes(encoded).writeBytes(new byte[] {9, 9});
      ByteBuf slice = direct.retainedSlice(7, encoded.length);
      direct.release();
      assertThat(ProtoMessages.parse(BytesValue.parser(), Message.of(slice))).as("%d bytes", n).isEqualTo(v);
      assertThat(slice.refCnt()).isZero();
    }
  }

  @Test
  void parsesFromACompositeOfDirectAndHeapParts() {
    byte[] encoded = VALUE.toByteArray();
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponent(true, Unpooled.directBuffer().writeBytes(Arrays.copyOfRange(encoded, 0, 5)));
    composite.addComponent(
        true, PooledByteBufAllocator.DEFAULT.heapBuffer().writeBytes(Arrays.copyOfRange(encoded, 5, 100)));
    composite.addComponent(
        true, Unpooled.directBuffer().writeBytes(Arrays.copyOfRange(encoded, 100, encoded.length)));
    assertThat(ProtoMessages.parse(BytesValue.parser(), Message.of(composite))).isEqualTo(VALUE);
    assertThat(composite.refCnt()).isZero();
  }

  @Test
  void parsesOnlyTheReadableBytesAndLeavesTheIndexesAlone() {
    StringValue v = StringValue.of("héllo");
    ByteBuf buf = Unpooled.directBuffer();
    try {
      buf.writeBytes(new byte[] {1, 2, 3});
      buf.writeBytes(v.toByteArray());
      buf.readerIndex(3);
      assertThat(ProtoMessages.parse(StringValue.parser(), buf)).isEqualTo(v);
      assertThat(buf.readerIndex()).isEqualTo(3);
      assertThat(buf.readableBytes()).isEqualTo(v.getSerializedSize());
    } finally {
      buf.release();
    }
  }

  @Test
  void garbageIsAnInternalErrorAndTheMessageIsReleased() {
    ByteBuf direct = Unpooled.directBuffer().writeBytes(new byte[] {(byte) 0x0A, 0x7F, 1});
    Message m = Message.of(direct);
    assertThatThrownBy(() -> ProtoMessages.parse(BytesValue.parser(), m))
        .isInstanceOfSatisfying(
            StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
    assertThat(m.refCnt()).isZero();
  }

  @Test
  void anEndGroupTagAtTopLevelIsRefused() {
    // Tag 1 with wire type 4 (end group) where no group is open.
    ByteBuf heap = PooledByteBufAllocator.DEFAULT.heapBuffer().writeByte(0x0C);
    try {
      assertThatThrownBy(() -> ProtoMessages.parse(BytesValue.parser(), heap))
          .isInstanceOf(StatusException.class);
      assertThat(heap.refCnt()).as("parse(ByteBuf) only reads").isOne();
    } finally {
      heap.release();
    }
  }

  @Test
  void firstCarriesTheCallMetadataAndTheRequest() {
    CallMetadata md = CallMetadata.of("pkg.Svc", "Method");
    Message m = ProtoMessages.first(PooledByteBufAllocator.DEFAULT, md, VALUE);
    try {
      assertThat(CallMetadataCodec.decode(m.metadata())).isEqualTo(md);
      assertThat(ProtoMessages.parse(BytesValue.parser(), m.data())).isEqualTo(VALUE);
    } finally {
      m.release();
    }
  }
}
