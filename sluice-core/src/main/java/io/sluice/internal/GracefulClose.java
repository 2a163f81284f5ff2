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
 * first. A server's drain ({@link #start} with {@code serverStop}) instead waits, once its streams
 * ended, for the peer to close (it does once its own streams ended), still at most until the
 * deadline: a request the peer sent before it heard of the close then reaches an open connection
 * and is refused with REJECTED, which a client may safely send elsewhere, instead of being lost
 * with the connection, which it may not (the request might have been processed). Confined to the
 * connection's event loop.
 */
final class GracefulClose {
  private final SluiceConnection conn;
  private ScheduledFuture<?> deadline;
  /** A server's drain: stay open until the peer closes or the deadline, not just the streams. */
  private boolean awaitPeerClose;

  GracefulClose(SluiceConnection conn) {
    this.conn = conn;
  }

  /**
   * Sends ERROR[CONNECTION_CLOSE] and drains within {@code drain}; with {@code leaseZero}, a
   * connection that grants leases first sends a LEASE of 0 requests, so that the peer's
   * availability drops before the close reaches it, and the connection then waits for the peer to
   * close (see the class). A connection not set up yet closes at once.
   */
  void start(Duration drain, boolean serverStop) {
    if (conn.state == SluiceConnection.CLOSED || conn.state == SluiceConnection.DRAINING) {
      return;
    }
    conn.in.closing(
        serverStop
            ? io.sluice.core.ConnectionStats.CloseCause.DRAIN
            : io.sluice.core.ConnectionStats.CloseCause.LOCAL_CLOSE);
    if (conn.state == SluiceConnection.AWAITING_SETUP) {
      conn.closeNow(null);
      return;
    }
    long millis = Math.max(1, millis(drain));
    if (serverStop && conn.lease.granting()) {
      conn.lease.grant((int) Math.min(Integer.MAX_VALUE, millis), 0, LeaseGrants.ALL_RANKS);
    }
    conn.out.sendError(0, ErrorCode.CONNECTION_CLOSE, "graceful close");
    conn.out.flushNow();
    awaitPeerClose = serverStop;
    startDraining(millis);
  }

  /** Refuses new streams from now on; closes once the live ones ended, or after {@code millis}. */
  void startDraining(long millis) {
    conn.setState(SluiceConnection.DRAINING);
    if (conn.streams.isEmpty() && !awaitPeerClose) {
      conn.closeNow(null);
      return;
    }
    deadline =
        conn.loop.schedule(
            () ->
                conn.closeNow(
                    conn.streams.isEmpty()
                        ? null // only the peer's close was awaited: a clean end
                        : new ConnectionCloseException(
                            "streams still live after the " + millis + " ms drain timeout")),
            millis,
            TimeUnit.MILLISECONDS);
  }

  /** A server's drain whose streams have ended waits only for the peer's close. */
  boolean awaitsPeerClose() {
    return awaitPeerClose;
  }

  void closeIfDrained() {
    if (conn.state == SluiceConnection.DRAINING && conn.streams.isEmpty() && !awaitPeerClose) {
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
