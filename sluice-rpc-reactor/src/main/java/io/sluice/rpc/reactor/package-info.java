/**
 * project-reactor flavor of Sluice RPC: the runtime glue that generated {@code Reactor*} classes
 * ({@code protoc-gen-sluice}, {@code flavor=reactor}) call. {@link
 * io.sluice.rpc.reactor.ReactorClientCalls} starts calls over a {@link
 * io.sluice.reactor.ReactorRequester}; {@link io.sluice.rpc.reactor.ReactorServerCalls} turns
 * {@code Mono}/{@code Flux} functions into the flavor-neutral {@link
 * io.sluice.rpc.ServerCallHandler}s that the dispatcher ({@link io.sluice.rpc.rsocket.RpcResponder})
 * drives.
 */
package io.sluice.rpc.reactor;
