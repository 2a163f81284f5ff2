package io.sluice.internal;

import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.ErrorCode;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.lease.LeaseGrants;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection's graceful close, started by this side ({@link SluiceConnection#close()}, a server's
 * drain) or by the peer's ERROR[CONNECTION_CLOSE]: new streams are refused, the live ones finish,
 * and the connection closes when the last one ends or at the drain deadline, whichever comes
 * first. Confined to the connection's event loop.
 */
final class GracefulClose {
  private final SluiceConnection conn;
  private ScheduledFuture<?> deadline;

  GracefulClose(SluiceConnection conn) {
    this.conn = conn;
  }

  /**
   * Sends ERROR[CONNECTION_CLOSE] and drains within {@code drain}; with {@code leaseZero}, a
   * connection that grants leases first sends a LEASE of 0 requests, so that the peer's
   * availability drops before the close reaches it. A connection not set up yet closes at once.
   */
  void start(Duration drain, boolean leaseZero) {
    if (conn.state == SluiceConnection.CLOSED || conn.state == SluiceConnection.DRAINING) {
      return;
    }
    if (conn.state == SluiceConnection.AWAITING_SETUP) {
      conn.closeNow(null);
      return;
    }
    long millis = Math.max(1, millis(drain));
    if (leaseZero && conn.lease.granting()) {
      conn.lease.grant((int) Math.min(Integer.MAX_VALUE, millis), 0, LeaseGrants.ALL_RANKS);
    }
    conn.out.sendError(0, ErrorCode.CONNECTION_CLOSE, "graceful close");
    conn.out.flushNow();
    startDraining(millis);
  }

  /** Refuses new streams from now on; closes once the live ones ended, or after {@code millis}. */
  void startDraining(long millis) {
    conn.setState(SluiceConnection.DRAINING);
    if (conn.streams.isEmpty()) {
      conn.closeNow(null);
      return;
    }
    deadline =
        conn.loop.schedule(
            () ->
                conn.closeNow(
                    new ConnectionCloseException(
                        "streams still live after the " + millis + " ms drain timeout")),
            millis,
            TimeUnit.MILLISECONDS);
  }

  void closeIfDrained() {
    if (conn.state == SluiceConnection.DRAINING && conn.streams.isEmpty()) {
      conn.closeNow(null);
    }
  }

  void cancel() {
    SluiceConnection.cancel(deadline);
  }

  private static long millis(Duration d) {
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
