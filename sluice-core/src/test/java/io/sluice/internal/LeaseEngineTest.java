package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.ManualClockLoop;
import org.junit.jupiter.api.Test;

/** The requester's side of leasing: what a lease from the peer allows. On a hand-moved clock. */
class LeaseEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  static ByteBuf lease(int ttlMillis, int requests) {
    ByteBuf b = Wire.ALLOC.buffer(6 + 8);
    io.sluice.internal.frame.Frames.writeLease(b, ttlMillis, requests, null);
    return b;
  }

  /** The next frame that is neither KEEPALIVE nor this side's own LEASE grants; must be {@code type}. */
  private Wire.Sent request(int type) {
    for (; ; ) {
      Wire.Sent s = transport.next();
      if (s.type() != FrameType.KEEPALIVE && s.type() != FrameType.LEASE) {
        assertThat(FrameType.name(s.type())).isEqualTo(FrameType.name(type));
        return s;
      }
    }
  }

  /** A request refused for another reason (too many live requests) spends no lease permit. */
  @Test
  void aRequestRefusedForMaxActiveStreamsSpendsNoPermit() {
    client(opts().lease(true).maxActiveStreams(1).build());
    transport.inject(lease(60_000, 2));
    Recorder a = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("a"), 1, a));
    int idA = request(FrameType.REQUEST_STREAM).streamId();

    Recorder refused = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("b"), 1, refused));
    Ev e = refused.take("error");
    assertThat(e.error()).isInstanceOf(RejectedException.class).hasMessageContaining("live requests");

    transport.inject(Wire.complete(idA));
    a.take("complete");
    Recorder c = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("c"), 1, c));
    Wire.Sent sentC = request(FrameType.REQUEST_STREAM);
    assertThat(sentC.dataUtf8()).as("the second permit is still there").isEqualTo("c");
    assertThat(c.events).isEmpty();
    transport.inject(Wire.complete(sentC.streamId()));
    c.take("complete");

    Recorder d = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("d"), 1, d));
    assertThat(d.take("error").error()).hasMessageContaining("lease");
  }

  @Test
  void aLeaseExpiresOnTheLoopsClock() {
    client(opts().lease(true).build());
    transport.inject(lease(1_000, 10));
    clock().advanceMillis(1_001);
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("late"), r));
    assertThat(r.take("error").error()).hasMessageContaining("lease exhausted or expired");
    transport.inject(lease(1_000, 10));
    Recorder ok = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("fresh"), ok));
    assertThat(request(FrameType.REQUEST_RESPONSE).dataUtf8())
        .isEqualTo("fresh");
  }
}
