package io.sluice.internal;

import io.sluice.lease.LeaseGrants;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The engine's {@link LeaseGrants} for one connection: a policy's grants become LEASE frames
 * (through {@link Lease#grant}). Thread-safe: a grant made off the connection's event loop is queued
 * to it in the connection's command order; one made on the loop is sent at once.
 */
final class LeaseGrantor implements LeaseGrants {
  private final SluiceConnection conn;
  private final Lease lease;

  LeaseGrantor(SluiceConnection conn, Lease lease) {
    this.conn = conn;
    this.lease = lease;
  }

  @Override
  public void grant(Duration ttl, int requests, int maxRank) {
    int ttlMillis = ttlMillis(ttl);
    if (requests < 0) {
      throw new IllegalArgumentException("lease requests must not be negative: " + requests);
    }
    if (maxRank < 0) {
      throw new IllegalArgumentException(
          "lease maxRank must not be negative (0 is the highest priority): " + maxRank);
    }
    if (conn.loop.inEventLoop()) {
      lease.grant(ttlMillis, requests, maxRank);
    } else {
      conn.commands.enqueue(() -> lease.grant(ttlMillis, requests, maxRank));
    }
  }

  /** A lease's time to live in whole milliseconds, 1 ms to 2^31-1 ms as the LEASE frame holds. */
  static int ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    long ms = ttl.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0 ? -1 : ttl.toMillis();
    if (ms <= 0 || ms > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("lease ttl must be 1 ms to 2^31-1 ms: " + ttl);
    }
    return (int) ms;
  }

  @Override
  public ScheduledExecutorService scheduler() {
    return conn.loop;
  }

  @Override
  public int remaining() {
    return lease.grantRemaining();
  }

  @Override
  public boolean isOpen() {
    return conn.isOpen();
  }

  @Override
  public String toString() {
    return "LeaseGrants of the " + conn;
  }
}
