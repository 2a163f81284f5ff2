package io.sluice.lease.adaptive;

import io.sluice.lease.LeaseGrants;

/**
 * A read-only view of an {@link AdaptiveLeasePolicy}'s state, for metrics, logs and tests. Every
 * method reads the live figure (a snapshot: values may move between two calls); any thread.
 */
public interface LeaseStats {

  /** The server-wide concurrency limit now (between the policy's minimum and maximum). */
  int limit();

  /** Calls in flight on every connection of the policy: started minus ended. */
  long inFlight();

  /**
   * The recent handler latency in nanoseconds (time to first response, a moving average over
   * sampling windows); 0 before the first window was measured.
   */
  long latencyNanos();

  /** The no-load latency in nanoseconds the limit is measured against; 0 before measurement. */
  long noLoadLatencyNanos();

  /**
   * The lowest priority admitted now: {@link LeaseGrants#ALL_RANKS} when no rank is shed, else
   * the largest rank admitted (ranks above it are refused; 0 is always admitted).
   */
  int admittedMaxRank();

  /** Connections the policy is granting to now. */
  int connections();

  /**
   * Requests per time to live an equal share gives each connection now: the average grant (busy
   * connections are granted more, idle ones less) and what a joining connection gets; 0 while the
   * calls in flight fill the limit.
   */
  int requestsPerConnection();

  /** Requests started since the policy was made. */
  long started();

  /** Requests refused before their handler saw them (lease exhausted or expired, or by rank). */
  long rejected();
}
