package io.sluice.transport.multiprotocol.internal;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The time a connection has, from its accept, to show which protocol it speaks (its first bytes,
 * and after TLS its handshake and its decrypted first bytes): when it runs out and the connection
 * is not settled, the connection is closed without an answer. Settled means handed to a protocol
 * whose own deadline takes over (the engine's setup timeout, the WebSocket upgrade timeout), or,
 * for HTTP/2, a condition checked when the time runs out (the client's preface has arrived).
 * Everything runs on the channel's event loop.
 */
final class DetectionDeadline {
  private static final BooleanSupplier SETTLED = () -> true;

  private final Channel channel;
  private ScheduledFuture<?> timer;
  /** Null until a stage settles the connection. */
  private BooleanSupplier settled;

  private DetectionDeadline(Channel channel) {
    this.channel = channel;
  }

  /** Starts the clock for {@code channel}; the timer goes when the channel closes. */
  static DetectionDeadline start(Channel channel, Duration timeout) {
    DetectionDeadline d = new DetectionDeadline(channel);
    d.timer = channel.eventLoop().schedule(d::expire, timeout.toNanos(), TimeUnit.NANOSECONDS);
    channel.closeFuture().addListener(f -> d.timer.cancel(false));
    return d;
  }

  private void expire() {
    if (settled == null || !settled.getAsBoolean()) {
      channel.close(); // silent or dribbling: no answer, no more resources
    }
  }

  /** The protocol's own deadlines take over: this one is cancelled. */
  void settle() {
    settled = SETTLED;
    timer.cancel(false);
  }

  /** When the time runs out, the connection stays open only if {@code condition} holds. */
  void settleWhen(BooleanSupplier condition) {
    settled = condition;
  }
}
