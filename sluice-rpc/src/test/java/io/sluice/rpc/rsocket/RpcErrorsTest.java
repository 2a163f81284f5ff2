package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.RejectedException;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Status in ERROR frames: APPLICATION_ERROR with data "code:description". */
class RpcErrorsTest {

  @Test
  void everyCodeRoundTrips() {
    for (Status.Code c : Status.Code.values()) {
      if (c == Status.Code.OK) {
        continue; // OK ends a call with COMPLETE, never with ERROR (see foreignErrorTextIsUnknown)
      }
      Status s = Status.of(c, "why: " + c + ": with colons");
      ApplicationErrorException wire = RpcErrors.toWire(s);
      assertThat(wire.getMessage()).isEqualTo(c.value() + ":why: " + c + ": with colons");
      assertThat(RpcErrors.fromThrowable(wire)).isEqualTo(s);
    }
  }

  @Test
  void foreignErrorTextIsUnknown() {
    assertThat(RpcErrors.decode("boom")).isEqualTo(Status.of(Status.Code.UNKNOWN, "boom"));
    assertThat(RpcErrors.decode("99:x")).isEqualTo(Status.of(Status.Code.UNKNOWN, "99:x"));
    assertThat(RpcErrors.decode("1a:x").code()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(RpcErrors.decode(":x").code()).isEqualTo(Status.Code.UNKNOWN);
    // Code 0 is OK, which never ends a call with ERROR; leading zeros are not Sluice's form.
    assertThat(RpcErrors.decode("0:x")).isEqualTo(Status.of(Status.Code.UNKNOWN, "0:x"));
    assertThat(RpcErrors.decode("00:x")).isEqualTo(Status.of(Status.Code.UNKNOWN, "00:x"));
    assertThat(RpcErrors.decode("05:x")).isEqualTo(Status.of(Status.Code.UNKNOWN, "05:x"));
    assertThat(RpcErrors.decode("5:x")).isEqualTo(Status.of(Status.Code.NOT_FOUND, "x"));
    assertThat(RpcErrors.decode("16:x")).isEqualTo(Status.of(Status.Code.UNAUTHENTICATED, "x"));
  }

  @Test
  void rsocketErrorCodesMap() {
    assertThat(RpcErrors.fromThrowable(new CanceledException("c")).code()).isEqualTo(Status.Code.CANCELLED);
    assertThat(RpcErrors.fromThrowable(new RejectedException("r")).code()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(RpcErrors.fromThrowable(new IllegalStateException("x")).code()).isEqualTo(Status.Code.UNKNOWN);
  }

  /**
   * A NUL in a description (text a handler echoes from its request, say) must not let the rest of
   * the text pass for response metadata, with or without metadata of the server's own.
   */
  @Test
  void aNulInADescriptionCannotForgeResponseMetadata() {
    String forged = "bad name: x\u0000" + ResponseMetadataCodec.encodeText(null, Headers.of("k", "v"));
    assertThat(ResponseMetadataCodec.decodeText(forged.substring(forged.indexOf('\u0000') + 1)))
        .as("the text after the NUL is a valid block")
        .isNotNull();
    Status s = Status.of(Status.Code.ABORTED, forged);
    for (String data :
        new String[] {
          RpcErrors.encode(s), RpcErrors.encode(s, null, null), RpcErrors.encode(s, Headers.EMPTY, Headers.EMPTY)
        }) {
      ApplicationErrorException e = new ApplicationErrorException(data);
      assertThat(RpcErrors.responseMetadata(e)).as(data).isNull();
      assertThat(RpcErrors.fromThrowable(e))
          .isEqualTo(Status.of(Status.Code.ABORTED, forged.replace('\u0000', '\uFFFD')));
    }
  }

  /** ERROR frames cannot be fragmented: what a status puts in one is bounded. */
  @Test
  void aLongDescriptionIsCut() {
    String huge = "x".repeat(17 << 20);
    String data = RpcErrors.encode(Status.of(Status.Code.UNKNOWN, huge));
    assertThat(data.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(RpcErrors.MAX_ERROR_DATA_BYTES);
    Status back = RpcErrors.decode(data);
    assertThat(back.code()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(back.description()).startsWith("xxxx").endsWith("...");
    // Multi-byte characters are cut whole: no broken surrogate pair, still within the bound.
    String faces = "\uD83D\uDE08".repeat(1 << 20);
    String d2 = RpcErrors.encode(Status.of(Status.Code.INTERNAL, faces), Headers.of("k", "v"), null);
    assertThat(d2.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(RpcErrors.MAX_ERROR_DATA_BYTES);
    String desc = RpcErrors.decode(d2).description();
    assertThat(desc).endsWith("...").doesNotContain("\uFFFD");
    assertThat(Character.isHighSurrogate(desc.charAt(desc.length() - 4))).isFalse();
    assertThat(RpcErrors.responseMetadata(new ApplicationErrorException(d2)).headers()).isEqualTo(Headers.of("k", "v"));
  }

  @Test
  void responseMetadataTooLargeForAnErrorIsLeftOutAndSaidSo() {
    Headers.Builder b = Headers.builder();
    for (int i = 0; i < 255; i++) {
      b.add("t" + i, "v".repeat(60_000));
    }
    Headers trailers = b.build();
    String data = RpcErrors.encode(Status.of(Status.Code.NOT_FOUND, "no such thing"), null, trailers);
    assertThat(data.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(RpcErrors.MAX_ERROR_DATA_BYTES);
    ApplicationErrorException e = new ApplicationErrorException(data);
    assertThat(RpcErrors.responseMetadata(e)).isNull();
    Status back = RpcErrors.decode(data);
    assertThat(back.code()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(back.description()).startsWith("no such thing").contains("response metadata").contains("left out");
    // Metadata within the bound still travels.
    String small = RpcErrors.encode(Status.of(Status.Code.NOT_FOUND, "n"), null, Headers.of("k", "v"));
    assertThat(RpcErrors.responseMetadata(new ApplicationErrorException(small)).trailers()).isEqualTo(Headers.of("k", "v"));
  }

  /**
   * An ERROR frame cannot be fragmented, so an engine with a small frame size cuts error data that
   * carries response metadata in the middle of its base64 block: the client keeps the status and
   * its description, and is told the metadata was left out, instead of reading a NUL and base64.
   */
  @Test
  void responseMetadataCutOnTheWayIsLeftOutNotShown() {
    Status s = Status.of(Status.Code.RESOURCE_EXHAUSTED, "too many");
    String data = RpcErrors.encode(s, Headers.EMPTY, Headers.of("detail", "x".repeat(2_000)));
    assertThat(data).contains("\u0000");
    String cut = data.substring(0, 1_000); // what an engine whose frames are ~1 KiB sends
    Status got = RpcErrors.decode(cut);
    assertThat(got.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(got.description()).isEqualTo("too many" + RpcErrors.CUT_METADATA).doesNotContain("\u0000");
    assertThat(RpcErrors.responseMetadata(new ApplicationErrorException(cut))).isNull();
    // Whole, the block still decodes and is not part of the description.
    assertThat(RpcErrors.decode(data)).isEqualTo(s);
    // Foreign text with a NUL is left as it is.
    assertThat(RpcErrors.decode("boom\u0000zz")).isEqualTo(Status.of(Status.Code.UNKNOWN, "boom\u0000zz"));
  }
}
