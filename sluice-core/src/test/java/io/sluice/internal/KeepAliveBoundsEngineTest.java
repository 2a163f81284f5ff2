package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.ManualClockLoop;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The client's SETUP chooses the keepalive interval and lifetime, but a server bounds both: a floor
 * on how often it checks (an interval of 1 ms would mean a timer per millisecond per connection)
 * and a ceiling on the lifetime (about 24 days would turn liveness off). On a hand-moved clock.
 */
class KeepAliveBoundsEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  private void acceptSetup(ConnectionOptions options, int interval, int lifetime) {
    server(options, new Responder() {});
    transport.inject(Wire.setup(interval, lifetime));
  }

  /**
   * Moves the clock in steps, as real time flows: a fixed-rate timer that falls behind catches up
   * with all its runs at the same instant, so one big jump would show each check the same time.
   */
  private void advanceInSteps(long millis, long stepMillis) {
    for (long done = 0; done < millis; done += stepMillis) {
      clock().advanceMillis(Math.min(stepMillis, millis - done));
    }
  }

  private void assertClosedForSilence() {
    Wire.Sent e = transport.nextSkippingKeepAlives(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CONNECTION_ERROR");
    assertThat(e.errorMessage()).contains("keepalive max lifetime");
    transport.awaitClosed();
  }

  @Test
  void theDefaultsBoundWhatAPeerMayAskFor() {
    ConnectionOptions o = ConnectionOptions.defaults();
    assertThat(o.minPeerKeepAliveInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(o.maxPeerKeepAliveLifetime()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void aKeepAliveIntervalBelowTheFloorIsCheckedAtTheFloor() {
    acceptSetup(opts().build(), 1, 50); // asks for a check every millisecond
    advanceInSteps(999, 10);
    assertThat(transport.isClosed()).as("checked before the 1 s floor").isFalse();
    transport.assertNothingSent();
    advanceInSteps(2001, 10);
    assertClosedForSilence(); // the 50 ms lifetime still holds, checked once a second
  }

  @Test
  void aLifetimeAboveTheCeilingEndsAtTheCeiling() {
    acceptSetup(
        opts().maxPeerKeepAliveLifetime(Duration.ofSeconds(10)).build(),
        Integer.MAX_VALUE,
        Integer.MAX_VALUE); // about 24 days each: liveness off, if taken as asked
    advanceInSteps(9_999, 500);
    assertThat(transport.isClosed()).isFalse();
    advanceInSteps(20_001, 500);
    assertClosedForSilence();
  }

  @Test
  void aPeerThatKeepsTalkingStaysWithinABoundedLifetime() {
    acceptSetup(
        opts().maxPeerKeepAliveLifetime(Duration.ofSeconds(10)).build(),
        Integer.MAX_VALUE,
        Integer.MAX_VALUE);
    for (int i = 0; i < 10; i++) {
      clock().advanceMillis(5_000);
      transport.inject(Wire.keepAlive(false, 0, new byte[0]));
    }
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void theBoundsAreOptions() {
    acceptSetup(opts().minPeerKeepAliveInterval(Duration.ofMillis(100)).build(), 1, 50);
    advanceInSteps(99, 1);
    assertThat(transport.isClosed()).isFalse();
    advanceInSteps(301, 1);
    assertClosedForSilence();
  }
}
