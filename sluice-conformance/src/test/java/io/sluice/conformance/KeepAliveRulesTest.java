package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** KEEPALIVE: rules 20-22 of docs/conformance.md. */
class KeepAliveRulesTest extends ConformanceTestBase {

  private static final byte[] ALL_BYTE_VALUES = new byte[256];

  static {
    for (int i = 0; i < 256; i++) {
      ALL_BYTE_VALUES[i] = (byte) i;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 20: the client sends KEEPALIVE with R=1 at the interval it declared in SETUP")
  void clientSendsKeepAliveWithRespondAtItsInterval(Wire wire) {
    ClientSide client =
        sluiceClient(
            wire,
            options().keepAlive(Duration.ofMillis(100), Duration.ofSeconds(30)).build(),
            new Recorder());
    assertThat(client.setup.setupKeepAlive()).isEqualTo(100);
    for (int i = 0; i < 3; i++) {
      WireFrame k = client.peer.next();
      assertThat(WireFrame.name(k.type())).isEqualTo("KEEPALIVE");
      assertThat(k.has(KEEPALIVE_R)).isTrue();
      assertThat(k.size()).isEqualTo(HEADER + 8);
      // Answer, as a live server would.
      client.peer.send(FrameBuilder.keepAlive(false, 0));
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 21: KEEPALIVE with R=1 is answered with R=0 and identical data; R=0 is not answered")
  void keepAliveIsEchoedWithIdenticalData(Wire wire) {
    RawPeer peer = established(wire, new Recorder());
    peer.send(FrameBuilder.keepAlive(true, 0, ALL_BYTE_VALUES));
    WireFrame echo = peer.next(KEEPALIVE);
    assertThat(echo.has(KEEPALIVE_R)).isFalse();
    assertThat(echo.keepAliveData()).isEqualTo(ALL_BYTE_VALUES);
    peer.send(FrameBuilder.keepAlive(false, 0, new byte[] {1, 2, 3}));
    peer.assertQuiet();

    ClientSide client = sluiceClient(wire);
    client.peer.send(FrameBuilder.keepAlive(true, 0, ALL_BYTE_VALUES));
    WireFrame clientEcho = client.peer.next(KEEPALIVE);
    assertThat(clientEcho.has(KEEPALIVE_R)).isFalse();
    assertThat(clientEcho.keepAliveData()).isEqualTo(ALL_BYTE_VALUES);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 22: the KEEPALIVE last-received position is 8 bytes, 0 without resumption")
  void keepAlivePositionIsEightBytesAndZero(Wire wire) {
    RawPeer peer = established(wire, new Recorder());
    peer.send(FrameBuilder.keepAlive(true, 123_456_789_012L, new byte[] {7}));
    WireFrame echo = peer.next(KEEPALIVE);
    assertThat(echo.size()).isEqualTo(HEADER + 8 + 1);
    assertThat(echo.keepAlivePosition()).isZero();
    assertThat(echo.keepAliveData()).containsExactly(7);
  }
}
