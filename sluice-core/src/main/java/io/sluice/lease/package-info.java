/**
 * Request leasing, the server's side: what a server grants each connection ({@link
 * io.sluice.lease.LeasePolicy}, one per server, and its {@link io.sluice.lease.ConnectionLease} per
 * connection), how it hands grants to the engine ({@link io.sluice.lease.LeaseGrants}), and the
 * per-request measurements that a policy and metrics read ({@link io.sluice.lease.RequestStats}).
 *
 * <p>The engine enforces a grant by itself: a request beyond the requests granted, or after the
 * grant's time to live, is answered REJECTED without reaching the responder. A policy only decides
 * the grants and, per request, whether to refuse it early (by its priority rank).
 *
 * <p>The client's side is {@link io.sluice.Requester#availability()}.
 */
package io.sluice.lease;
