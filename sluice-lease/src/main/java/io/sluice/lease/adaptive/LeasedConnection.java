package io.sluice.lease.adaptive;

import io.sluice.Message;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One connection's lease under an {@link AdaptiveLeasePolicy}: granted at once when it joins the
 * policy's {@link LeaseTick}, then looked at on every tick and granted anew when its grant is half
 * way through its time to live, when its share moved by more than the policy's re-grant change, or
 * when the admitted rank changed. Its share follows what it spent of its last grant ({@link #need}).
 *
 * <p>Threads: the record of the last grant ({@code grantedAt}, {@code grantedRequests}, {@code
 * grantedRank}) is written under the tick's lock before the connection joins the tick's set (which
 * publishes it), then by ticks only, one at a time. {@link #send}, {@link #admit} and {@link
 * #close} run on the connection's event loop; {@code closed} is volatile.
 */
final class LeasedConnection implements ConnectionLease {
  private final AdaptiveLeasePolicy policy;
  private final LeaseGrants grants;
  private long grantedAt;
  private int grantedRequests;
  private int grantedRank;
  private volatile boolean closed;

  LeasedConnection(AdaptiveLeasePolicy policy, LeaseGrants grants) {
    this.policy = policy;
    this.grants = grants;
  }

  /** The connection's event loop: where its grants are made. */
  ScheduledExecutorService scheduler() {
    return grants.scheduler();
  }

  /** Neither closed nor closing. Any thread. */
  boolean isOpen() {
    return !closed && grants.isOpen();
  }

  /** Records a grant about to be sent, as made at {@code at} (a tick's time). */
  void granted(long at, int requests, int rank) {
    grantedAt = at;
    grantedRequests = requests;
    grantedRank = rank;
  }

  /**
   * At a tick: the requests per ttl this connection needs, from what it spent of its last grant
   * since it was made: twice its rate (room to grow), at least 1. On the tick only.
   */
  double need(long now) {
    long used = Math.max(0, (long) grantedRequests - grants.remaining());
    long elapsed = Math.max(policy.tickNanos(), now - grantedAt);
    return Math.max(1, 2.0 * used * policy.ttlNanos() / elapsed);
  }

  /**
   * At a tick: whether the connection is due a new grant of {@code requests} and {@code rank} now
   * (renewal, a moved share, a changed rank); if so, records it as granted. On the tick only.
   */
  boolean due(long now, int requests, int rank) {
    if (!isOpen()) {
      return false;
    }
    // Half a tick early: a tick that starts late must not push the renewal a whole tick on (with
    // a tick of half the ttl, to the lease's very end).
    if (now - grantedAt >= policy.renewNanos() - policy.tickNanos() / 2
        || rank != grantedRank
        || Math.abs((double) requests - grantedRequests) > grantedRequests * policy.regrantChange()) {
      granted(now, requests, rank);
      return true;
    }
    return false;
  }

  /** Sends a grant. On the connection's event loop. */
  void send(int requests, int rank) {
    if (!closed) {
      grants.grant(policy.ttl(), requests, rank);
    }
  }

  @Override
  public boolean admit(Message request) {
    return policy.admit(request);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    policy.detach(this);
  }
}
