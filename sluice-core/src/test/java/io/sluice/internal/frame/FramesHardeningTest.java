package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Readers ignore the M bit where a type has no metadata; writers refuse what cannot be encoded. */
class FramesHardeningTest {

  @Test
  void metadataFlagOnTypesWithoutMetadataIsIgnoredByReaders() {
    ByteBuf cancel = PooledByteBufAllocator.DEFAULT.buffer();
    ByteBuf error = PooledByteBufAllocator.DEFAULT.buffer();
    ByteBuf keepAlive = PooledByteBufAllocator.DEFAULT.buffer();
    try {
      Frames.writeHeader(cancel, 3, FrameType.CANCEL, Frames.FLAG_METADATA);
      Frames.writeHeader(error, 3, FrameType.ERROR, Frames.FLAG_METADATA);
      error.writeInt(0x201).writeBytes("boom".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      Frames.writeKeepAlive(keepAlive, true, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
      keepAlive.setShort(4, keepAlive.getShort(4) | Frames.FLAG_METADATA);

      assertThat(FrameValidator.validate(cancel)).isNull();
      assertThat(Frames.metadata(cancel)).isNull();
      assertThat(Frames.data(cancel).readableBytes()).isZero();
      assertThat(Frames.metadata(error)).isNull();
      assertThat(Frames.errorMessage(error)).isEqualTo("boom");
      assertThat(Frames.metadata(keepAlive)).isNull();
      assertThat(Frames.data(keepAlive).readableBytes()).isZero();
      assertThat(Frames.keepAliveData(keepAlive).readableBytes()).isEqualTo(3);
    } finally {
      cancel.release();
      error.release();
      keepAlive.release();
    }
  }

  @Test
  void metadataLongerThanTheU24LengthIsRefused() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer();
    ByteBuf metadata = Unpooled.wrappedBuffer(new byte[Frames.MAX_METADATA_LENGTH + 1]);
    try {
      assertThatThrownBy(() -> Frames.writePayload(out, metadata, Unpooled.EMPTY_BUFFER))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("does not fit");
    } finally {
      out.release();
    }
  }

  @Test
  void requestNNeverSetsTheReservedTopBit() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer();
    try {
      Frames.writeRequestN(out, 5, -1);
      assertThat(out.getInt(Frames.HEADER_SIZE) & 0x80000000).isZero();
      out.clear();
      Frames.writeRequestHeader(out, 5, FrameType.REQUEST_STREAM, 0, -1);
      assertThat(out.getInt(Frames.HEADER_SIZE) & 0x80000000).isZero();
    } finally {
      out.release();
    }
  }
}
