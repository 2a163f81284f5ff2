package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.frame.Frames;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import io.sluice.lease.LeasePolicy;
import java.util.concurrent.TimeUnit;

/**
 * RSocket leasing on one connection, both ways. The lease the peer granted us: how many requests
 * we may send until when, and the lowest priority it admits (the LEASE's 4-byte metadata), kept in
 * volatile fields so that {@link #availability} may be read from any thread. The one we grant the
 * peer: decided by the connection's {@link LeasePolicy} through a {@link LeaseGrantor}; a request
 * beyond it is REJECTED without reaching the responder, and the policy's {@link
 * ConnectionLease#admit} may refuse one more. Confined to the connection's event loop but for
 * {@link #availability} and {@link #grantRemaining}.
 */
final class Lease {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(Lease.class);

  private final SluiceConnection conn;
  /** Leasing was asked for in SETUP: by our options (client) or by the client's SETUP (server). */
  private volatile boolean enabled; // volatile: availability() reads it from any thread

  // What the peer granted us; written on the loop, read from any thread by availability().
  /** Requests of the peer's last LEASE; -1 before the first. */
  private volatile int granted = -1;
  private volatile int allowed;
  private volatile long expiresNanos;
  private volatile int maxRank = LeaseGrants.ALL_RANKS;

  // What we grant the peer; the count is read by LeaseGrants.remaining() from any thread.
  private volatile int grantedLeft;
  private volatile long grantExpiresNanos;
  /** The policy's state for this connection, or null (leasing off, or closed). */
  private ConnectionLease policy;

  Lease(SluiceConnection conn) {
    this.conn = conn;
  }

  /**
   * Starts granting the peer leases: attaches the connection to {@link
   * ConnectionOptions#leasePolicy()}, whose measurements (if any) join the connection's {@link
   * io.sluice.lease.RequestStats}.
   */
  void startGrants() {
    enabled = true;
    LeasePolicy p = conn.options.leasePolicy();
    try {
      conn.in.stats = RequestStatsTap.combine(conn.options.requestStats(), p.requestStats());
      policy = p.attach(new LeaseGrantor(conn, this));
    } catch (Throwable t) {
      logger.warn("{}.attach threw; closing the connection", p, t);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR, "the lease policy failed: " + Errors.message(t), t);
    }
  }

  /**
   * Sends the peer a LEASE that replaces the previous grant. Ignored unless the connection is
   * established (a closing one refuses new requests anyway). Call on the loop.
   */
  void grant(int ttlMillis, int requests, int maxRank) {
    if (conn.state != SluiceConnection.ESTABLISHED) {
      return;
    }
    grantExpiresNanos = conn.ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
    grantedLeft = requests;
    conn.out.writeLease(ttlMillis, requests, maxRank);
    conn.out.requestFlush();
  }

  /** True if this side grants the peer leases (the connection leases). */
  boolean granting() {
    return enabled && policy != null;
  }

  /** {@link LeaseGrants#remaining()}: requests the current grant still allows. Any thread. */
  int grantRemaining() {
    int left = grantedLeft;
    return left > 0 && conn.ticker.nanoTime() - grantExpiresNanos <= 0 ? left : 0;
  }

  /** The peer's LEASE: returns true if it counts (leasing is on), false if it is ignored. */
  boolean onLeaseFrame(ByteBuf frame) {
    if (!enabled) {
      return false;
    }
    ByteBuf md = Frames.metadata(frame);
    maxRank = md != null && md.readableBytes() == 4 ? md.getInt(md.readerIndex()) : LeaseGrants.ALL_RANKS;
    expiresNanos = conn.ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Frames.leaseTtl(frame));
    int requests = Frames.leaseRequests(frame);
    allowed = requests;
    granted = requests;
    return true;
  }

  /**
   * {@link io.sluice.Requester#availability(int)}: the share of the peer's last LEASE still unspent
   * while it is valid and admits {@code rank} ({@code Integer.MIN_VALUE}: any rank). Any thread.
   */
  double availability(int rank) {
    if (!conn.isOpen()) {
      return 0;
    }
    if (!enabled) {
      return 1;
    }
    int of = granted;
    int left = allowed;
    if (of <= 0 || left <= 0 || rank > maxRank || conn.ticker.nanoTime() - expiresNanos > 0) {
      return 0;
    }
    return Math.min(1.0, (double) left / of);
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
    if (granted < 0) {
      return RejectedException.notSent("no lease received from the peer yet");
    }
    int left = allowed;
    if (left <= 0 || conn.ticker.nanoTime() - expiresNanos > 0) {
      return RejectedException.notSent("lease exhausted or expired");
    }
    allowed = left - 1;
    return null;
  }

  /** A request from the peer: true if our grant covers it (and counts it), or leasing is off. */
  boolean admitPeerRequest() {
    if (!enabled) {
      return true;
    }
    int left = grantedLeft;
    if (left <= 0 || conn.ticker.nanoTime() - grantExpiresNanos > 0) {
      return false;
    }
    grantedLeft = left - 1;
    return true;
  }

  /**
   * Asks the policy whether a complete request the grant covers may reach the responder (true when
   * this side grants no leases). A policy that throws refuses it.
   */
  boolean admit(Message request) {
    ConnectionLease p = policy;
    if (p == null) {
      return true;
    }
    try {
      return p.admit(request);
    } catch (Throwable t) {
      logger.warn("ConnectionLease.admit threw; refusing the request", t);
      return false;
    }
  }

  /** The connection closed: the policy forgets it (once). */
  void cancel() {
    ConnectionLease p = policy;
    policy = null;
    if (p != null) {
      try {
        p.close();
      } catch (Throwable t) {
        logger.warn("ConnectionLease.close threw", t);
      }
    }
  }
}
