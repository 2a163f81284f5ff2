package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import org.junit.jupiter.api.Test;

/** The call metadata layout of docs/rpc-wire-format.md, byte for byte. */
class CallMetadataCodecTest {

  private static byte[] encode(CallMetadata m) {
    ByteBuf b = CallMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, m);
    try {
      assertThat(b.readableBytes()).isEqualTo(CallMetadataCodec.size(m));
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  /**
   * Decodes from a pooled (leak-tracked) buffer, which decoding only reads: it must neither keep
   * nor release it.
   */
  private static CallMetadata decode(byte[] bytes) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(bytes.length).writeBytes(bytes);
    try {
      return CallMetadataCodec.decode(b);
    } finally {
      assertThat(b.refCnt()).as("decode leaves the buffer's references alone").isOne();
      b.release();
    }
  }

  @Test
  void minimalCall() {
    byte[] bytes = encode(CallMetadata.of("a.S", "M"));
    assertThat(bytes).containsExactly(1, 0, 3, 'a', '.', 'S', 1, 'M');
    assertThat(decode(bytes)).isEqualTo(CallMetadata.of("a.S", "M"));
  }

  @Test
  void everyOptionalPart() {
    CallMetadata m = CallMetadata.of("s", "m", Headers.of("k", "v1", "k", "v2"), 0x01020304L, true, -2);
    byte[] bytes = encode(m);
    assertThat(bytes)
        .containsExactly(
            1, 0x0F, 1, 's', 1, 'm',
            1, 2, 3, 4, // timeout ms
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE, // rank -2
            2, // header count
            1, 'k', 0, 2, 'v', '1',
            1, 'k', 0, 2, 'v', '2');
    assertThat(decode(bytes)).isEqualTo(m);
  }

  @Test
  void exampleOfTheWireFormatPage() {
    CallMetadata m =
        CallMetadata.of("demo.Greeter", "SayHello", Headers.of("client-id", "a1"), 250, true, 0);
    assertThat(ByteBufUtil.hexDump(encode(m)))
        .isEqualTo(
            "01070c64656d6f2e47726565746572"
                + "0853617948656c6c6f"
                + "000000fa"
                + "0109636c69656e742d696400026131");
  }

  @Test
  void httpPathNamesServiceAndMethodAndRefusesWhatIsNotCallMetadata() {
    CallMetadata m =
        CallMetadata.of("demo.Greeter", "SayHello", Headers.of("client-id", "a1"), 250, true, 0);
    ByteBuf encoded = Unpooled.wrappedBuffer(encode(m));
    assertThat(CallMetadataCodec.httpPath(encoded)).isEqualTo("/demo.Greeter/SayHello");
    assertThat(encoded.readerIndex()).isZero();
    assertThat(CallMetadataCodec.httpPath(encoded.slice(0, 20))).isNull(); // cut in the method
    ByteBuf other = Unpooled.wrappedBuffer(new byte[] {2, 0, 1, 's', 1, 'm'}); // version 2
    assertThat(CallMetadataCodec.httpPath(other)).isNull();
  }

  @Test
  void binaryHeadersRoundTripAsTheirBase64() {
    byte[] raw = {0, (byte) 0xFF, 10, 13, 37};
    io.sluice.rpc.Headers h =
        io.sluice.rpc.Headers.builder().add("plain", "v").addBinary("trace-bin", raw).build();
    CallMetadata m = CallMetadata.of("a.S", "M", h, CallMetadata.NO_TIMEOUT, false, 0);
    CallMetadata back = decode(encode(m));
    assertThat(back).isEqualTo(m);
    assertThat(back.headers().getBinary("trace-bin")).isEqualTo(raw);
  }

  @Test
  void largestTimeoutRoundTrips() {
    CallMetadata m = CallMetadata.of("s", "m", Headers.EMPTY, CallMetadata.MAX_TIMEOUT_MILLIS, false, 0);
    assertThat(decode(encode(m)).timeoutMillis()).isEqualTo(0xFFFF_FFFFL);
  }

  @Test
  void refusesBadInput() {
    assertBad(new byte[] {2, 0, 1, 's', 1, 'm'}, "version 2");
    assertBad(new byte[] {1, 0x40, 1, 's', 1, 'm'}, "unknown flags 0x40");
    assertBad(new byte[] {1, (byte) 0x80, 1, 's', 1, 'm'}, "unknown flags 0x80");
    assertBad(new byte[] {1, 0, 5, 's', 1, 'm'}, "truncated");
    assertBad(new byte[] {1, 0, 1, 's', 1, 'm', 0}, "1 trailing bytes");
    assertBad(new byte[] {1, 0x02, 1, 's', 1, 'm', 0, 0}, "truncated in the deadline");
    assertBad(new byte[] {1, 0x04, 1, 's', 1, 'm', 0}, "0 headers");
    assertBad(new byte[] {1, 0x04, 1, 's', 1, 'm', 1, 1, 'K', 0, 0}, "header key 'K'");
    assertBad(new byte[] {1, 0, 0, 1, 'm'}, "service name must have 1..255");
    assertBad(new byte[] {1, 0}, "at least 4 needed");
  }

  private static void assertBad(byte[] bytes, String reason) {
    assertThatThrownBy(() -> decode(bytes))
        .isInstanceOf(StatusException.class)
        .satisfies(
            t -> {
              Status s = ((StatusException) t).status();
              assertThat(s.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(s.description()).contains(reason);
            });
  }

  @Test
  void leavesTheBufferIndexesAlone() {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer().writeBytes(new byte[] {1, 0, 1, 's', 1, 'm'});
    try {
      CallMetadataCodec.decode(b);
      assertThat(b.readerIndex()).isZero();
      assertThat(b.refCnt()).isOne();
    } finally {
      b.release();
    }
  }

  @Test
  void cachedEncodingIsByteForByteTheEncodingEveryTime() {
    CallMetadata plain = CallMetadata.of("pkg.Svc", "Method", Headers.EMPTY, CallMetadata.NO_TIMEOUT, true, 3);
    CallMetadata other = CallMetadata.of("pkg.Svc", "Other");
    CallMetadata timed = CallMetadata.of("pkg.Svc", "Method", Headers.EMPTY, 250, false, 0);
    for (int round = 0; round < 3; round++) {
      for (CallMetadata m : new CallMetadata[] {plain, other, timed}) {
        ByteBuf b = CallMetadataCodec.encodeCached(PooledByteBufAllocator.DEFAULT, m);
        try {
          assertThat(ByteBufUtil.getBytes(b)).isEqualTo(encode(m));
          assertThat(CallMetadataCodec.decode(b)).isEqualTo(m);
        } finally {
          b.release();
        }
      }
    }
  }
}
