package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.frame.Frames;
import java.util.concurrent.TimeUnit;

/**
 * RSocket leasing on one connection, both ways: the lease the peer granted us (how many requests
 * we may send until when) and the one we grant the peer (requests beyond it are REJECTED without
 * reaching the responder). The grant is fixed by {@link ConnectionOptions#leaseGrant} and renewed
 * every half time-to-live. Confined to the connection's event loop.
 */
final class Lease {
  private final SluiceConnection conn;
  /** Leasing was asked for in SETUP: by our options (client) or by the client's SETUP (server). */
  boolean enabled;
  // What the peer granted us.
  private boolean received;
  private int allowed;
  private long expiresNanos;
  // What we granted the peer.
  private int grantedLeft;
  private long grantExpiresNanos;
  private ScheduledFuture<?> grantTask;

  Lease(SluiceConnection conn) {
    this.conn = conn;
  }

  /** Grants the peer a lease now and renews it every half time-to-live. */
  void startGrants() {
    enabled = true;
    grant();
    long period = Math.max(1, conn.options.leaseTtlMillis() / 2);
    grantTask = conn.loop.scheduleAtFixedRate(this::grant, period, period, TimeUnit.MILLISECONDS);
  }

  private void grant() {
    if (conn.state == SluiceConnection.CLOSED) {
      return;
    }
    ConnectionOptions o = conn.options;
    grantedLeft = o.leaseRequests();
    grantExpiresNanos = conn.ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.leaseTtlMillis());
    conn.out.writeLease(o.leaseTtlMillis(), o.leaseRequests());
    conn.out.requestFlush();
  }

  /** The peer's LEASE: returns true if it counts (leasing is on), false if it is ignored. */
  boolean onLeaseFrame(ByteBuf frame) {
    if (!enabled) {
      return false;
    }
    received = true;
    allowed = Frames.leaseRequests(frame);
    expiresNanos = conn.ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Frames.leaseTtl(frame));
    return true;
  }

  /**
   * Spends a permit of the peer's lease for a request we send, or says why there is none (null:
   * taken, or leasing is off). Call only for a request that goes out: the peer counts what it
   * receives.
   */
  Throwable takePermit() {
    if (!enabled) {
      return null;
    }
    if (!received) {
      return RejectedException.stackless("no lease received from the peer yet");
    }
    if (allowed <= 0 || conn.ticker.nanoTime() - expiresNanos > 0) {
      return RejectedException.stackless("lease exhausted or expired");
    }
    allowed--;
    return null;
  }

  /** A request from the peer: true if our grant covers it (and counts it), or leasing is off. */
  boolean admitPeerRequest() {
    if (!enabled) {
      return true;
    }
    if (grantedLeft <= 0 || conn.ticker.nanoTime() - grantExpiresNanos > 0) {
      return false;
    }
    grantedLeft--;
    return true;
  }

  void cancel() {
    SluiceConnection.cancel(grantTask);
  }
}
