package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * A {@link ServerCallHandler} of a unary method that can also start a call whose request is
 * already in hand. A transport that has the whole request when the call starts (RSocket's
 * request-response carries it in its first frame) may call {@link #startUnary} instead of {@link
 * #startCall}: the request skips the round trip through {@link ServerCall#request} and {@link
 * ServerCall.Listener#onMessage}, and a handler whose answer is known at once needs no listener
 * object of its own. Both ways must serve the call alike.
 *
 * <p><b>Threads.</b> As {@link #startCall}: called on the connection's event loop, must not block.
 * <b>Buffers.</b> None: the request arrives parsed.
 */
public interface UnaryCallHandler<Req extends MessageLite, Resp extends MessageLite>
    extends ServerCallHandler<Req, Resp> {

  /**
   * Serves a call whose one request is {@code request} and whose caller sends nothing more: what
   * {@link #startCall}, the handler's {@code request(1)}, {@link ServerCall.Listener#onMessage} and
   * {@link ServerCall.Listener#onHalfClose} would do. The handler must not call {@link
   * ServerCall#request}. Returns the listener for the call's remaining signals ({@link
   * ServerCall.Listener#onCancel}, {@link ServerCall.Listener#onReady}), never null; a handler
   * that already closed the call may return a shared listener that ignores them.
   */
  ServerCall.Listener<Req> startUnary(ServerCall<Req, Resp> call, Req request);
}
