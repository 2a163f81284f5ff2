package io.sluice.internal;

import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.ErrorCode;
import java.util.concurrent.TimeUnit;

/**
 * Keepalive of one connection: a timer that checks the peer was heard from within its lifetime
 * (any inbound frame counts) and, on a client, sends KEEPALIVE frames. The server only checks (it
 * sends none, as rsocket-java#1128 settled); its check period and the lifetime come from the
 * client's SETUP within the server's bounds (see {@code SetupHandshake}). Confined to the loop.
 */
final class KeepAlive {
  private final SluiceConnection conn;
  /** A frame came in since the last check: set per inbound frame, cleared by the check. */
  boolean heard;
  /**
   * A KEEPALIVE with the respond flag went out since the last check other than the keepalive's
   * own (a resumable session's question for the peer's position): it does a keepalive's work (the
   * peer hears from us and answers), so the check sends none; the two together stay within the
   * peer's bound on KEEPALIVEs. Set by the session, cleared by the check.
   */
  boolean askedSinceCheck;
  private long lastHeardNanos;
  private long lifetimeNanos;
  private ScheduledFuture<?> task;

  KeepAlive(SluiceConnection conn) {
    this.conn = conn;
  }

  /**
   * Starts the checks, {@code periodMillis} apart: a peer silent for longer than {@code
   * lifetimeNanos} is cut off. With {@code send}, each check also sends a KEEPALIVE.
   */
  void start(long periodMillis, long lifetimeNanos, boolean send) {
    this.lifetimeNanos = lifetimeNanos;
    lastHeardNanos = conn.ticker.nanoTime();
    // A client that sends runs with a fixed delay: after the loop was held up (a GC pause, a
    // handler that blocked it) a fixed rate runs every missed tick back to back, a burst of
    // KEEPALIVEs that a peer bounding them per second (a Sluice server does) answers by closing
    // the connection. A server only checks, on a fixed rate: its checks keep to the client's
    // period instead of drifting later by a little each time, so with a lifetime equal to the
    // interval one keepalive a little late is not silence past the lifetime.
    Runnable check = () -> tick(send);
    task =
        send
            ? conn.loop.scheduleWithFixedDelay(check, periodMillis, periodMillis, TimeUnit.MILLISECONDS)
            : conn.loop.scheduleAtFixedRate(check, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  private void tick(boolean send) {
    if (conn.state == SluiceConnection.CLOSED) {
      return;
    }
    conn.commands.runOwedDrain();
    long now = conn.ticker.nanoTime();
    if (heard) {
      heard = false;
      lastHeardNanos = now;
    } else if (now - lastHeardNanos > lifetimeNanos) {
      conn.in.closing(io.sluice.core.ConnectionStats.CloseCause.KEEPALIVE_TIMEOUT);
      conn.in.limitHit(io.sluice.core.ConnectionStats.Limit.KEEPALIVE_MAX_LIFETIME);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR,
          "no frame from the peer for "
              + TimeUnit.NANOSECONDS.toMillis(now - lastHeardNanos)
              + " ms (keepalive max lifetime)",
          null);
      return;
    }
    boolean asked = askedSinceCheck;
    askedSinceCheck = false;
    if (send && !asked) {
      conn.out.writeKeepAlive(true, null);
      conn.out.flushNow();
    }
  }

  void cancel() {
    SluiceConnection.cancel(task);
  }
}
