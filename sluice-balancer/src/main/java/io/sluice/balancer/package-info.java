/**
 * A client-side load balancer that is itself a {@link io.sluice.Requester} ({@link
 * io.sluice.balancer.Balancer}), and where it learns its servers ({@link
 * io.sluice.balancer.AddressSource}: static, DNS, or pushed). See docs/guide/fleet.md.
 */
package io.sluice.balancer;
