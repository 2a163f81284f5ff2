package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The wire-format additions of docs/rpc-wire-format.md byte for byte: call metadata flags 0x10
 * (no-message) and 0x20 (response-metadata), the response metadata block, and response metadata
 * at the end of an ERROR's data; and that frames of the older format still decode as before.
 */
class ResponseMetadataWireTest {
  private static final Headers SERVER_ID = Headers.of("server-id", "s1");
  private static final Headers COST = Headers.builder().addBinary("cost-bin", new byte[] {1, 2}).build();

  private static byte[] bytes(ByteBuf b) {
    try {
      return ByteBufUtil.getBytes(b);
    } finally {
      b.release();
    }
  }

  private static byte[] hex(String s) {
    return ByteBufUtil.decodeHexDump(s.replace(" ", ""));
  }

  private static ResponseMetadataCodec.Decoded decode(byte[] bytes) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(bytes.length).writeBytes(bytes);
    try {
      return ResponseMetadataCodec.decode(b);
    } finally {
      assertThat(b.refCnt()).as("decode leaves the buffer's references alone").isOne();
      b.release();
    }
  }

  @Test
  void callMetadataWithResponseMetadataFlagIsTheExampleOfThePage() {
    CallMetadata m = CallMetadata.of("demo.Greeter", "Chat").withResponseMetadata(true);
    byte[] got = bytes(CallMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, m));
    assertThat(ByteBufUtil.hexDump(got)).isEqualTo("01200c64656d6f2e4772656574657204436861 74".replace(" ", ""));
    ByteBuf in = PooledByteBufAllocator.DEFAULT.heapBuffer().writeBytes(got);
    try {
      assertThat(CallMetadataCodec.decode(in)).isEqualTo(m);
      assertThat(CallMetadataCodec.decode(in).responseMetadata()).isTrue();
      assertThat(CallMetadataCodec.noMessage(in)).isFalse();
    } finally {
      in.release();
    }
  }

  @Test
  void theFirstFrameOfAnEmptyClientStreamHasTheNoMessageFlagAndNoData() {
    CallMetadata m = CallMetadata.of("demo.Greeter", "Chat").withResponseMetadata(true);
    io.sluice.Message first = ProtoMessages.firstWithoutMessage(PooledByteBufAllocator.DEFAULT, m);
    try {
      assertThat(ByteBufUtil.hexDump(first.metadata()))
          .isEqualTo("01300c64656d6f2e4772656574657204436861 74".replace(" ", ""));
      assertThat(first.data().readableBytes()).isZero();
      assertThat(CallMetadataCodec.noMessage(first.metadata())).isTrue();
      assertThat(CallMetadataCodec.decode(first.metadata())).isEqualTo(m);
    } finally {
      first.release();
    }
  }

  @Test
  void anOldFormatFrameStillDecodesWithoutResponseMetadataOrNoMessage() {
    // The example of the page as a version-1 peer from before flags 0x10/0x20 writes it.
    byte[] old =
        hex("01 07 0c 64 65 6d 6f 2e 47 72 65 65 74 65 72 08 53 61 79 48 65 6c 6c 6f 00 00 00 fa"
            + " 01 09 63 6c 69 65 6e 74 2d 69 64 00 02 61 31");
    ByteBuf in = PooledByteBufAllocator.DEFAULT.heapBuffer().writeBytes(old);
    try {
      CallMetadata m = CallMetadataCodec.decode(in);
      assertThat(m.responseMetadata()).isFalse();
      assertThat(CallMetadataCodec.noMessage(in)).isFalse();
      assertThat(m.headers()).isEqualTo(Headers.of("client-id", "a1"));
      // And it encodes back to the same bytes: a caller that asks for nothing sends the old format.
      assertThat(bytes(CallMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, m))).isEqualTo(old);
    } finally {
      in.release();
    }
  }

  @Test
  void headersAndTrailersBlockIsTheExampleOfThePage() {
    byte[] got = bytes(ResponseMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, SERVER_ID, COST, false));
    assertThat(got)
        .isEqualTo(hex("01 03 01 09 73 65 72 76 65 72 2d 69 64 00 02 73 31 01 08 63 6f 73 74 2d 62 69 6e 00 03 41 51 49"));
    ResponseMetadataCodec.Decoded d = decode(got);
    assertThat(d.headers()).isEqualTo(SERVER_ID);
    assertThat(d.trailers()).isEqualTo(COST);
    assertThat(d.trailers().getBinary("cost-bin")).containsExactly(1, 2);
    assertThat(d.noMessage()).isFalse();
  }

  @Test
  void theFinalFrameOfAStreamCarriesTrailersAndNoMessage() {
    byte[] got = bytes(ResponseMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, null, COST, true));
    assertThat(got).isEqualTo(hex("01 06 01 08 63 6f 73 74 2d 62 69 6e 00 03 41 51 49"));
    ResponseMetadataCodec.Decoded d = decode(got);
    assertThat(d.headers()).isNull();
    assertThat(d.trailers()).isEqualTo(COST);
    assertThat(d.noMessage()).isTrue();
  }

  @Test
  void emptyHeadersAreLeftOut() {
    assertThat(bytes(ResponseMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, Headers.EMPTY, Headers.EMPTY, true)))
        .containsExactly(1, 4);
  }

  @Test
  void badResponseMetadataIsAnInternalError() {
    assertBad(new byte[] {2, 0}, "version 2");
    assertBad(new byte[] {1, 8}, "unknown flags 0x8");
    assertBad(new byte[] {1, 1}, "truncated");
    assertBad(new byte[] {1, 1, 0}, "0 headers");
    assertBad(new byte[] {1, 0, 0}, "1 trailing bytes");
    assertBad(new byte[] {1}, "at least 2 needed");
  }

  private static void assertBad(byte[] bytes, String reason) {
    assertThatThrownBy(() -> decode(bytes))
        .isInstanceOf(StatusException.class)
        .satisfies(
            t -> {
              Status s = ((StatusException) t).status();
              assertThat(s.code()).isEqualTo(Status.Code.INTERNAL);
              assertThat(s.description()).contains(reason);
            });
  }

  @Test
  void errorDataEndsWithNulAndTheBase64OfTheBlock() {
    String data = RpcErrors.encode(Status.of(Status.Code.NOT_FOUND, "no such user"), null, COST);
    assertThat(data).isEqualTo("5:no such user\u0000AQIBCGNvc3QtYmluAANBUUk");
    ApplicationErrorException e = new ApplicationErrorException(data);
    assertThat(RpcErrors.fromThrowable(e)).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such user"));
    ResponseMetadataCodec.Decoded d = RpcErrors.responseMetadata(e);
    assertThat(d.trailers()).isEqualTo(COST);
    assertThat(d.headers()).isNull();
  }

  @Test
  void errorDataWithoutMetadataIsTheOldFormat() {
    assertThat(RpcErrors.encode(Status.of(Status.Code.NOT_FOUND, "x"), Headers.EMPTY, null)).isEqualTo("5:x");
    ApplicationErrorException old = new ApplicationErrorException("12:unknown service demo.Nope");
    assertThat(RpcErrors.responseMetadata(old)).isNull();
    assertThat(RpcErrors.fromThrowable(old)).isEqualTo(Status.of(Status.Code.UNIMPLEMENTED, "unknown service demo.Nope"));
  }

  @Test
  void aNulInADescriptionNeitherHidesTextNorPassesForMetadata() {
    // A foreign peer's text with a NUL that is not followed by response metadata stays whole.
    ApplicationErrorException foreign = new ApplicationErrorException("5:a\u0000b c");
    assertThat(RpcErrors.responseMetadata(foreign)).isNull();
    assertThat(RpcErrors.fromThrowable(foreign).description()).isEqualTo("a\u0000b c");
    // Sluice's encoder replaces a NUL of the description so the separator stays unique.
    String data = RpcErrors.encode(Status.of(Status.Code.ABORTED, "x\u0000y"), SERVER_ID, null);
    assertThat(RpcErrors.fromThrowable(new ApplicationErrorException(data)).description()).isEqualTo("x\uFFFDy");
    assertThat(RpcErrors.responseMetadata(new ApplicationErrorException(data)).headers()).isEqualTo(SERVER_ID);
    assertThat(data.getBytes(StandardCharsets.UTF_8)).contains(0);
  }
}
