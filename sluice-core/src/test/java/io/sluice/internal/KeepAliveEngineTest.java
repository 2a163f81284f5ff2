package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Responder;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** KEEPALIVE: the client's beat, echoes, and silence past the max lifetime. */
class KeepAliveEngineTest extends EngineTestBase {

  @Test
  void clientSendsKeepAliveWithRespondFlagAtItsInterval() {
    client(opts().keepAlive(Duration.ofMillis(50), Duration.ofSeconds(10)).build());
    for (int i = 0; i < 3; i++) {
      Wire.Sent k = transport.next(FrameType.KEEPALIVE);
      assertThat(k.streamId()).isZero();
      assertThat(k.has(Frames.FLAG_KEEPALIVE_RESPOND)).as("R flag").isTrue();
      assertThat(k.position()).isZero(); // no resume: last received position is 0
      assertThat(k.data()).isEmpty();
      assertThat(k.size()).isEqualTo(Frames.HEADER_SIZE + 8);
      // The peer answers, as a live server would.
      transport.inject(Wire.keepAlive(false, 0, k.data()));
    }
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void serverEchoesKeepAliveWithIdenticalData() {
    acceptedServer(opts().build(), new Responder() {});
    byte[] data = Wire.pattern(300, 7);
    transport.inject(Wire.keepAlive(true, 0, data));
    Wire.Sent echo = transport.next(FrameType.KEEPALIVE);
    assertThat(echo.streamId()).isZero();
    assertThat(echo.has(Frames.FLAG_KEEPALIVE_RESPOND)).as("R flag").isFalse();
    assertThat(echo.data()).isEqualTo(data);
    transport.assertNothingSent();
  }

  @Test
  void clientEchoesAServerKeepAlive() {
    client(opts().build());
    transport.inject(Wire.keepAlive(true, 0, Wire.b("ping")));
    Wire.Sent echo = transport.next(FrameType.KEEPALIVE);
    assertThat(echo.has(Frames.FLAG_KEEPALIVE_RESPOND)).isFalse();
    assertThat(echo.dataUtf8()).isEqualTo("ping");
  }

  @Test
  void keepAliveWithoutRespondFlagIsNotAnswered() {
    acceptedServer(opts().build(), new Responder() {});
    transport.inject(Wire.keepAlive(false, 0, Wire.b("pong")));
    transport.assertNothingSent();
  }

  @Test
  void keepAliveOnAStreamIsAConnectionError() {
    acceptedServer(opts().build(), new Responder() {});
    io.netty.buffer.ByteBuf k = Wire.keepAlive(true, 0, null);
    k.setInt(k.readerIndex(), 1);
    transport.inject(k);
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(error.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    transport.awaitClosed();
  }

  @Test
  void serverClosesASilentClientAfterItsMaxLifetime() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.setup(50, 200));
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(ErrorCode.name(error.errorCode())).isEqualTo("CONNECTION_ERROR");
    assertThat(error.errorMessage()).contains("keepalive");
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isInstanceOf(ConnectionErrorException.class);
  }

  @Test
  void clientClosesASilentServerAfterItsMaxLifetimeAndFailsItsStreams() {
    client(opts().keepAlive(Duration.ofMillis(50), Duration.ofMillis(200)).build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
    Wire.Sent error = transport.nextSkippingKeepAlives(FrameType.REQUEST_STREAM);
    assertThat(error.streamId()).isEqualTo(1);
    Wire.Sent e = transport.nextSkippingKeepAlives(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CONNECTION_ERROR");
    transport.awaitClosed();
    Ev ev = r.take("error");
    assertThat(ev.error()).isInstanceOf(ConnectionErrorException.class);
    assertThat(Loop.awaitOutcome(conn.onClose())).isInstanceOf(ConnectionErrorException.class);
  }

  @Test
  void anInboundFrameKeepsTheConnectionAlive() throws Exception {
    server(opts().build(), new Responder() {});
    // Lifetime 2 s, frames every ~100 ms for 2.5 s: only a stall of the test thread longer than
    // the whole lifetime could close it (and fewer than maxKeepAlivesPerSecond).
    transport.inject(Wire.setup(50, 2000));
    long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
    while (System.nanoTime() < end) {
      transport.inject(Wire.keepAlive(false, 0, null));
      Thread.sleep(100);
    }
    assertThat(transport.isClosed()).isFalse();
    transport.assertNothingSent();
  }
}
