package io.sluice.lease;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * How a {@link LeasePolicy} grants leases on one connection; implemented by the engine. Thread-safe:
 * a grant made off the connection's event loop is handed to it.
 */
public interface LeaseGrants {

  /** Every rank is admitted: the value of {@code maxRank} that refuses none. */
  int ALL_RANKS = Integer.MAX_VALUE;

  /**
   * Sends a LEASE: the peer may start {@code requests} requests (0 stops it) within {@code ttl}
   * from now; the grant replaces the previous one, whatever of that was left. {@code maxRank} is the
   * lowest priority admitted now (ranks above it are refused, 0 is the highest priority): it travels
   * in the LEASE's metadata so that a client routes such requests elsewhere before sending them
   * ({@link io.sluice.Requester#availability(int)}). Ignored once the connection is closed.
   *
   * @throws IllegalArgumentException if {@code ttl} is not positive or above 2^31-1 ms, or {@code
   *     requests} or {@code maxRank} is negative
   */
  void grant(Duration ttl, int requests, int maxRank);

  /** The connection's event loop, for the policy's timers. Stop them in {@link ConnectionLease#close()}. */
  ScheduledExecutorService scheduler();

  /** Requests the current grant still allows. Any thread; a snapshot. */
  int remaining();

  /** True until the connection starts closing. */
  boolean isOpen();
}
