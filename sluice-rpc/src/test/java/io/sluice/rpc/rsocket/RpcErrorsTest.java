package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.RejectedException;
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
}
