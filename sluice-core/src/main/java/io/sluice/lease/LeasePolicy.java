package io.sluice.lease;

import java.time.Duration;

/**
 * Decides the leases a server grants. One instance serves every connection of a server (or of
 * several), so implementations are thread-safe; each lease-enabled connection gets its own {@link
 * ConnectionLease} from {@link #attach}.
 *
 * <p>Set it with {@link io.sluice.core.ConnectionOptions.Builder#leasePolicy(LeasePolicy)}. It is
 * used only on connections whose client asked for leasing in its SETUP; without a policy such a
 * connection is granted {@link #unlimited()}.
 */
public interface LeasePolicy {

  /**
   * A lease-enabled connection has been set up. Called on the connection's event loop before any
   * request is read. The policy grants through {@code grants} (the first grant should come at once:
   * the client sends nothing until it has one) and re-grants as its view of the load changes.
   */
  ConnectionLease attach(LeaseGrants grants);

  /**
   * The measurements this policy learns from, or null if it needs none. The engine reports every
   * request of every connection that uses this policy to it (in addition to {@link
   * io.sluice.core.ConnectionOptions#requestStats()}).
   */
  default RequestStats requestStats() {
    return null;
  }

  /**
   * A fixed grant: {@code requests} requests per {@code ttl} on each connection, renewed every
   * half {@code ttl}. Every rank is admitted.
   */
  static LeasePolicy fixed(Duration ttl, int requests) {
    return new FixedLeasePolicy(ttl, requests);
  }

  /** As good as no leasing: {@link Integer#MAX_VALUE} requests per 30 seconds, renewed. */
  static LeasePolicy unlimited() {
    return fixed(Duration.ofSeconds(30), Integer.MAX_VALUE);
  }
}
