/**
 * Sluice RPC over RSocket: the call metadata codec ({@link
 * io.sluice.rpc.rsocket.CallMetadataCodec}), status ↔ ERROR frame mapping ({@link
 * io.sluice.rpc.rsocket.RpcErrors}), protobuf ↔ {@link io.sluice.Message} ({@link
 * io.sluice.rpc.rsocket.ProtoMessages}) and the dispatcher ({@link
 * io.sluice.rpc.rsocket.RpcResponder}).
 */
package io.sluice.rpc.rsocket;
