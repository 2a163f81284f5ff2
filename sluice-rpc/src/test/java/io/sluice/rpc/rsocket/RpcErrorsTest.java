package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.RejectedException;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import org.junit.jupiter.api.Test;

/** Status in ERROR frames: APPLICATION_ERROR with data "code:description". */
class RpcErrorsTest {

  @Test
  void everyCodeRoundTrips() {
    for (Status.Code c : Status.Code.values()) {
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
}
