/**
 * {@link io.sluice.lease.adaptive.AdaptiveLeasePolicy}: a {@link io.sluice.lease.LeasePolicy}
 * that grants leases from a server-wide concurrency limit it learns from handler latency and calls
 * in flight, and sheds low priority ranks first as load nears the limit; {@link
 * io.sluice.lease.adaptive.LeaseStats} is its read-only view for metrics. The SPI it implements is
 * {@code io.sluice.lease} in sluice-core; docs/guide/leasing.md is the user's page.
 */
package io.sluice.lease.adaptive;
