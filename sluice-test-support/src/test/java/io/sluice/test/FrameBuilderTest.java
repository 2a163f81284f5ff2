package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Hand-computed RSocket 1.0 vectors for every builder (header u16 = type << 10 | flags). */
class FrameBuilderTest {

  private static void assertHex(FrameBuilder.Builder<?> builder, String expected) {
    assertThat(builder.hex()).isEqualTo(Hex.normalize(expected));
  }

  @Test
  void setupDefaults() {
    // 20000 ms = 0x4e20, 90000 ms = 0x15f90, "application/binary" = 18 = 0x12 bytes
    String mime = Hex.encode("application/binary".getBytes(StandardCharsets.US_ASCII));
    assertHex(
        FrameBuilder.setup(), "00000000 0400 0001 0000 00004e20 00015f90 12" + mime + "12" + mime);
  }

  @Test
  void setupWithEverything() {
    assertHex(
        FrameBuilder.setup()
            .keepAlive(1000)
            .lifetime(5000)
            .lease(true)
            .resumeToken(new byte[] {(byte) 0xAA})
            .metadataMime("a")
            .dataMime("bc")
            .metadata("M")
            .data("D"),
        // flags M|R|L = 0x100|0x80|0x40 = 0x1c0 -> 0x0400|0x1c0 = 0x05c0
        "00000000 05c0 0001 0000 000003e8 00001388 0001 aa 01 61 02 6263 000001 4d 44");
  }

  @Test
  void lease() {
    assertHex(FrameBuilder.lease(1000, 5), "00000000 0800 000003e8 00000005");
    assertHex(FrameBuilder.lease(1, 2).metadata("m"), "00000000 0900 00000001 00000002 6d");
  }

  @Test
  void keepAlive() {
    assertHex(
        FrameBuilder.keepAlive(true, 0, new byte[] {0x78}), "00000000 0c80 0000000000000000 78");
    assertHex(FrameBuilder.keepAlive(false, 0x0102030405060708L), "00000000 0c00 0102030405060708");
  }

  @Test
  void requests() {
    assertHex(FrameBuilder.requestResponse(1).data("hi"), "00000001 1000 6869");
    assertHex(FrameBuilder.requestFnf(3).metadata("m").data("d"), "00000003 1500 000001 6d 64");
    assertHex(FrameBuilder.requestStream(5, 10), "00000005 1800 0000000a");
    assertHex(FrameBuilder.requestChannel(7, 1, true), "00000007 1c40 00000001");
    assertHex(
        FrameBuilder.requestStream(9, 2).follows(true).metadata(new byte[0]),
        "00000009 1980 00000002 000000");
  }

  @Test
  void payloadFlags() {
    assertHex(FrameBuilder.payload(1, true, true).data("hi"), "00000001 2860 6869");
    assertHex(FrameBuilder.payload(1, true, false), "00000001 2820");
    assertHex(FrameBuilder.payload(1, false, true), "00000001 2840");
    assertHex(
        FrameBuilder.payload(1).next(true).follows(true).metadata("m"), "00000001 29a0 000001 6d");
  }

  @Test
  void requestNCancelError() {
    assertHex(FrameBuilder.requestN(5, 7), "00000005 2000 00000007");
    assertHex(FrameBuilder.cancel(3), "00000003 2400");
    assertHex(FrameBuilder.error(0, 0x201, "x"), "00000000 2c00 00000201 78");
    assertHex(FrameBuilder.error(1, 0x301, null), "00000001 2c00 00000301");
  }

  @Test
  void metadataPushResumeExt() {
    assertHex(FrameBuilder.metadataPush("md"), "00000000 3100 6d64");
    assertHex(
        FrameBuilder.resume(new byte[] {(byte) 0xAA, (byte) 0xBB}, 1, 2),
        "00000000 3400 0001 0000 0002 aabb 0000000000000001 0000000000000002");
    assertHex(FrameBuilder.resumeOk(5), "00000000 3800 0000000000000005");
    assertHex(FrameBuilder.ext(1, 7).ignore(true), "00000001 fe00 00000007");
    assertHex(
        FrameBuilder.ext(2, 1).metadata("m").data("d"), "00000002 fd00 00000001 000001 6d 64");
  }

  @Test
  void escapeHatches() {
    assertHex(FrameBuilder.raw(0, 0x10, 0x3ff, (byte) 1, (byte) 2), "00000000 43ff 0102");
    assertHex(FrameBuilder.cancel(1).streamIdRaw(0x80000001), "80000001 2400");
    assertHex(FrameBuilder.cancel(1).streamId(0x80000001), "00000001 2400");
    assertHex(FrameBuilder.requestN(1, 1).type(FrameBuilder.TYPE_CANCEL), "00000001 2400 00000001");
    assertHex(FrameBuilder.payload(1).next(true).flags(0), "00000001 2800");
    assertHex(
        FrameBuilder.payload(1).addFlags(0x200).clearFlags(0x100).metadata("m"),
        "00000001 2a00 000001 6d");
    assertHex(FrameBuilder.requestN(1, 1).truncate(8), "00000001 2000 0000");
    assertHex(FrameBuilder.cancel(1).append((byte) 0xEE), "00000001 2400 ee");
    assertHex(
        FrameBuilder.payload(1).metadata("m").declaredMetadataLength(0xFFFFFF),
        "00000001 2900 ffffff 6d");
    assertHex(
        FrameBuilder.setup().metadataMime("").dataMime("").declaredDataMimeLength(9),
        "00000000 0400 0001 0000 00004e20 00015f90 00 09");
    assertHex(
        FrameBuilder.resume(new byte[0], 0, 0).declaredTokenLength(3).truncate(12),
        "00000000 3400 0001 0000 0003");
    assertHex(
        FrameBuilder.raw(1, FrameBuilder.TYPE_ERROR, 0)
            .u32(0x201)
            .u8(0xC3)
            .u16(0x1234)
            .u24(1)
            .u64(-1),
        "00000001 2c00 00000201 c3 1234 000001 ffffffffffffffff");
  }

  @Test
  void lengthPrefixedConsumesTheFrame() {
    ByteBuf frame = FrameBuilder.cancel(1).build(PooledByteBufAllocator.DEFAULT);
    ByteBuf prefixed = FrameBuilder.lengthPrefixed(frame);
    try {
      assertThat(frame.refCnt()).isZero();
      assertThat(Hex.encode(prefixed)).isEqualTo("000006 00000001 2400".replace(" ", ""));
    } finally {
      prefixed.release();
    }
    assertThat(Hex.encode(FrameBuilder.lengthPrefixed(new byte[300])).substring(0, 6))
        .isEqualTo("00012c");
    ByteBuf direct =
        FrameBuilder.requestN(3, 1).buildLengthPrefixed(PooledByteBufAllocator.DEFAULT);
    try {
      assertThat(Hex.encode(direct)).isEqualTo(Hex.normalize("00000a 00000003 2000 00000001"));
    } finally {
      direct.release();
    }
  }

  @Test
  void buildReturnsAnOwnedBuffer() {
    ByteBuf buf = FrameBuilder.payload(1, true, false).data("x").build();
    try {
      assertThat(buf.refCnt()).isEqualTo(1);
      assertThat(buf.readableBytes()).isEqualTo(7);
    } finally {
      buf.release();
    }
  }

  @Test
  void initialNOnlyOnStreamAndChannel() {
    assertThatThrownBy(() -> new FrameBuilder.PayloadBuilder(FrameBuilder.TYPE_PAYLOAD, 1, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
