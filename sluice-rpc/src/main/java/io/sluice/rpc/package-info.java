/**
 * Sluice RPC runtime, flavor- and transport-neutral: a call is a service and method ({@link
 * io.sluice.rpc.CallMetadata}: headers, deadline, idempotency, rank), a stream of protobuf messages
 * each way, and a {@link io.sluice.rpc.Status} at the end. Servers register {@link
 * io.sluice.rpc.ServiceDefinition}s in a {@link io.sluice.rpc.ServiceRegistry}; API flavors turn
 * their handlers into {@link io.sluice.rpc.ServerCallHandler}s driven through {@link
 * io.sluice.rpc.ServerCall}. The RSocket binding lives in {@link io.sluice.rpc.rsocket}; the wire
 * format is in docs/rpc-wire-format.md.
 */
package io.sluice.rpc;
