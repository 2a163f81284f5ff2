package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.ManualClockLoop;
import org.junit.jupiter.api.Test;

/**
 * {@link io.sluice.Requester#availability()} and {@code availability(rank)} of a client, read
 * from the test's thread (not the loop), on a hand-moved clock.
 */
class AvailabilityEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  private void sendRequest(String data) {
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg(data), r));
    for (; ; ) { // skipping this client's own LEASE grants and KEEPALIVEs
      Wire.Sent s = transport.next();
      if (s.type() != FrameType.LEASE && s.type() != FrameType.KEEPALIVE) {
        assertThat(s.type()).isEqualTo(FrameType.REQUEST_RESPONSE);
        return;
      }
    }
  }

  @Test
  void withoutLeasingItIsOneWhileOpenAndZeroOnceClosed() {
    client(opts().build());
    assertThat(conn.availability()).isEqualTo(1.0);
    assertThat(conn.availability(7)).isEqualTo(1.0);
    Loop.run(loop, conn::close);
    assertThat(conn.availability()).isZero();
    assertThat(conn.availability(0)).isZero();
  }

  @Test
  void itIsTheShareOfTheLastLeaseLeftUntilItExpires() {
    client(opts().lease(true).build());
    assertThat(conn.availability()).as("before the first LEASE").isZero();
    transport.inject(Wire.lease(1_000, 4));
    assertThat(conn.availability()).isEqualTo(1.0);
    sendRequest("1");
    assertThat(conn.availability()).isEqualTo(0.75);
    sendRequest("2");
    sendRequest("3");
    sendRequest("4");
    assertThat(conn.availability()).as("spent").isZero();

    transport.inject(Wire.lease(1_000, 2));
    assertThat(conn.availability()).isEqualTo(1.0);
    clock().advanceMillis(1_000);
    assertThat(conn.availability()).as("valid for its whole ttl").isEqualTo(1.0);
    clock().advanceMillis(1);
    assertThat(conn.availability()).as("expired").isZero();
    assertThat(conn.availability(0)).isZero();

    transport.inject(Wire.lease(1_000, 0));
    assertThat(conn.availability()).as("a LEASE of 0").isZero();
  }

  @Test
  void theLeasesMaxRankRefusesLowerPrioritiesOnly() {
    client(opts().lease(true).build());
    transport.inject(Wire.lease(60_000, 10, new byte[] {0, 0, 0, 2}));
    assertThat(conn.availability(0)).as("rank 0, the highest").isEqualTo(1.0);
    assertThat(conn.availability(2)).isEqualTo(1.0);
    assertThat(conn.availability(3)).as("above maxRank").isZero();
    assertThat(conn.availability(Integer.MAX_VALUE)).isZero();
    assertThat(conn.availability()).isEqualTo(1.0);

    transport.inject(Wire.lease(60_000, 10, new byte[] {0, 0, 2}));
    assertThat(conn.availability(1_000)).as("3 bytes of metadata: every rank").isEqualTo(1.0);
    transport.inject(Wire.lease(60_000, 10, new byte[] {0, 0, 0, 0}));
    assertThat(conn.availability(1)).isZero();
    assertThat(conn.availability(0)).isEqualTo(1.0);
    transport.inject(Wire.lease(60_000, 10, new byte[] {0, 0, 0, 1, 0, 0, 0, 1}));
    assertThat(conn.availability(1_000)).as("8 bytes of metadata: every rank").isEqualTo(1.0);
    transport.inject(Wire.lease(60_000, 10, new byte[] {0, 0, 0, 0}));
    transport.inject(Wire.lease(60_000, 10));
    assertThat(conn.availability(1_000)).as("no metadata: every rank").isEqualTo(1.0);
  }

  @Test
  void itIsZeroOnceTheConnectionIsClosingOrClosed() {
    client(opts().lease(true).build());
    transport.inject(Wire.lease(60_000, 10));
    assertThat(conn.availability()).isEqualTo(1.0);
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_CLOSE, "going away"));
    assertThat(conn.availability()).as("closing").isZero();
    transport.awaitClosed();
    Loop.awaitOutcome(conn.onClose());
    assertThat(conn.availability()).as("closed").isZero();
    assertThat(conn.availability(0)).isZero();
  }
}
