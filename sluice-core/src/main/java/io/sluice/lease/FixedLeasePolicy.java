package io.sluice.lease;

import io.netty.util.internal.ObjectUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** {@link LeasePolicy#fixed}: the same grant on every connection, renewed every half ttl. */
final class FixedLeasePolicy implements LeasePolicy {
  private final Duration ttl;
  private final int requests;

  FixedLeasePolicy(Duration ttl, int requests) {
    ObjectUtil.checkNotNull(ttl, "ttl");
    long ms = ttl.toMillis();
    if (ms <= 0 || ms > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("lease ttl must be 1 ms to 2^31-1 ms: " + ttl);
    }
    this.ttl = ttl;
    this.requests = ObjectUtil.checkPositiveOrZero(requests, "requests");
  }

  @Override
  public ConnectionLease attach(LeaseGrants grants) {
    grants.grant(ttl, requests, LeaseGrants.ALL_RANKS);
    long period = Math.max(1, ttl.toMillis() / 2);
    ScheduledFuture<?> renew =
        grants
            .scheduler()
            .scheduleAtFixedRate(
                () -> grants.grant(ttl, requests, LeaseGrants.ALL_RANKS),
                period,
                period,
                TimeUnit.MILLISECONDS);
    return () -> renew.cancel(false);
  }

  @Override
  public String toString() {
    return "LeasePolicy.fixed(" + ttl + ", " + requests + ")";
  }
}
