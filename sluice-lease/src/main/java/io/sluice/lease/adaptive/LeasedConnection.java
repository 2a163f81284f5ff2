package io.sluice.lease.adaptive;

import io.sluice.Message;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One connection's lease under an {@link AdaptiveLeasePolicy}: grants at once, then looks again
 * every tick on the connection's own scheduler and grants anew when the grant is half way through
 * its time to live, when its share moved by more than the policy's re-grant change, or when the
 * admitted rank changed. Its fields are touched on the connection's event loop only (the ticks,
 * {@link #admit} and {@link #close} run there), except {@code closed}, which is volatile.
 */
final class LeasedConnection implements ConnectionLease, Runnable {
  private final AdaptiveLeasePolicy policy;
  private final LeaseGrants grants;
  private ScheduledFuture<?> timer;
  private long grantedAt;
  private int grantedRequests;
  private int grantedRank;
  private volatile boolean closed;

  LeasedConnection(AdaptiveLeasePolicy policy, LeaseGrants grants) {
    this.policy = policy;
    this.grants = grants;
  }

  /** The first grant, then the ticks. */
  void start() {
    grant(policy.now(), policy.requestsPerConnection(), policy.admittedMaxRank());
    long tick = policy.tickNanos();
    timer = grants.scheduler().scheduleAtFixedRate(this, tick, tick, TimeUnit.NANOSECONDS);
  }

  /** A tick. */
  @Override
  public void run() {
    if (closed || !grants.isOpen()) {
      return;
    }
    long now = policy.now();
    policy.maybeUpdate(now);
    int requests = policy.requestsPerConnection();
    int rank = policy.admittedMaxRank();
    if (now - grantedAt >= policy.renewNanos()
        || rank != grantedRank
        || Math.abs((double) requests - grantedRequests) > grantedRequests * policy.regrantChange()) {
      grant(now, requests, rank);
    }
  }

  private void grant(long now, int requests, int rank) {
    grantedAt = now;
    grantedRequests = requests;
    grantedRank = rank;
    grants.grant(policy.ttl(), requests, rank);
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
    if (timer != null) {
      timer.cancel(false);
    }
    policy.detach();
  }
}
