package io.sluice.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.test.Hex;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingMetadataTest {

  @Test
  void tagsAreU8LengthThenUtf8() {
    ByteBuf out = RoutingMetadata.encode(PooledByteBufAllocator.DEFAULT, "echo.route", "\u00fc");
    try {
      assertThat(Hex.encode(out)).isEqualTo("0a" + "6563686f2e726f757465" + "02" + "c3bc");
      assertThat(RoutingMetadata.tags(out)).containsExactly("echo.route", "\u00fc");
      assertThat(RoutingMetadata.firstTag(out)).isEqualTo("echo.route");
    } finally {
      out.release();
    }
  }

  @Test
  void readerReportsOffsetsWithoutMovingIndexes() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer();
    try {
      RoutingMetadata.encode(out, List.of("a", "bcd"));
      RoutingMetadata.Reader r = RoutingMetadata.reader(out);
      assertThat(r.next()).isTrue();
      assertThat(r.tagOffset()).isEqualTo(1);
      assertThat(r.tagLength()).isEqualTo(1);
      assertThat(r.next()).isTrue();
      assertThat(r.tag()).isEqualTo("bcd");
      assertThat(r.next()).isFalse();
      assertThat(out.readerIndex()).isZero();
    } finally {
      out.release();
    }
  }

  @Test
  void tagLengthLimits() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer();
    try {
      RoutingMetadata.encodeTag(out, "r".repeat(255));
      assertThat(out.readableBytes()).isEqualTo(256);
      assertThat(RoutingMetadata.firstTag(out)).hasSize(255);
      assertThatThrownBy(() -> RoutingMetadata.encodeTag(out, "r".repeat(256)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("got 256");
      // 128 two-byte characters are 256 UTF-8 bytes.
      assertThatThrownBy(() -> RoutingMetadata.encodeTag(out, "\u00fc".repeat(128)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> RoutingMetadata.encodeTag(out, ""))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(out.readableBytes()).as("a refused tag writes nothing").isEqualTo(256);
    } finally {
      out.release();
    }
  }

  @Test
  void tagRunningPastTheEndIsMalformed() {
    ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer().writeBytes(Hex.decode("0161" + "05616263"));
    try {
      RoutingMetadata.Reader r = RoutingMetadata.reader(in);
      assertThat(r.next()).isTrue();
      assertThatThrownBy(r::next)
          .isInstanceOf(MalformedMetadataException.class)
          .hasMessage("routing tag 2 at offset 2: its length 5 runs past the end (3 bytes left)");
      assertThat(r.next()).isFalse();
      assertThatThrownBy(() -> RoutingMetadata.tags(in)).isInstanceOf(MalformedMetadataException.class);
    } finally {
      in.release();
    }
  }

  @Test
  void emptyRoutingHasNoTags() {
    ByteBuf empty = PooledByteBufAllocator.DEFAULT.buffer();
    try {
      assertThat(RoutingMetadata.firstTag(empty)).isNull();
      assertThat(RoutingMetadata.tags(empty)).isEmpty();
    } finally {
      empty.release();
    }
  }
}
