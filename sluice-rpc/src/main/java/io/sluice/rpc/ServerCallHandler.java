package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * Serves the calls of one method. API flavors provide implementations (generated server code
 * builds them from the user's service implementation); transports call {@link #startCall}.
 *
 * <p><b>Threads.</b> {@link #startCall} is called on the connection's event loop and must not
 * block. <b>Buffers.</b> Holds none: the handler sees parsed protobuf messages, and the transport
 * owns and releases their encoded bytes.
 */
@FunctionalInterface
public interface ServerCallHandler<Req extends MessageLite, Resp extends MessageLite> {
  /**
   * Starts one call and returns the listener for its inbound signals. Called on the connection's
   * event loop: return quickly. Nothing is delivered before the handler {@link ServerCall#request
   * requests} it.
   */
  ServerCall.Listener<Req> startCall(ServerCall<Req, Resp> call);
}
