package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * Runs around the start of every call of the methods it is applied to ({@link
 * ServerInterceptors#intercept}): it sees the call before the method's handler does, and may check
 * the call's {@link CallMetadata#headers() headers}, send response headers, wrap the call (a {@link
 * ForwardingServerCall} that, say, adds trailers to however the call ends) or its listener, or end
 * the call with a {@link Status} instead of starting the handler.
 *
 * <pre>{@code
 * ServerInterceptor auth = new ServerInterceptor() {
 *   public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
 *       ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
 *     if (call.metadata().headers().get("authorization") == null) {
 *       return ServerInterceptors.reject(call, Status.of(Status.Code.UNAUTHENTICATED, "no token"));
 *     }
 *     return next.startCall(call);
 *   }
 * };
 * }</pre>
 *
 * <p>{@link #interceptCall} is generic, so a lambda cannot implement this interface: use a class
 * (as above) or a method reference to a generic method of the same shape.
 *
 * <p><b>Threads.</b> {@link #interceptCall} runs where {@link ServerCallHandler#startCall} runs: on
 * the connection's event loop, once per call; it must not block. One interceptor serves many calls
 * on many connections at once, so any state it keeps across calls must be thread-safe. The {@link
 * ServerCall} it gets follows that interface's contract (any thread, one signal at a time), and
 * so must a call it wraps and hands on.
 *
 * <p><b>Buffers.</b> None: requests and responses are parsed protobuf messages, and the transport
 * owns their bytes. An interceptor that refuses a call does so from {@link #interceptCall} itself,
 * with {@link ServerInterceptors#reject} (or {@link ServerCall#close} and a listener that ignores
 * what comes). One that decides later, say after an asynchronous lookup, closes the call from
 * whatever thread the answer comes on. Either way the transport releases the request it holds for
 * a call that ends before asking for it.
 */
public interface ServerInterceptor {
  /**
   * Intercepts one call. Either returns {@code next.startCall(call)} (with {@code call} itself or a
   * wrapper of it, and optionally the returned listener wrapped), or ends the call with {@link
   * ServerCall#close} and returns a listener for the signals still to come (such as {@link
   * ServerInterceptors#reject}'s). A {@link RuntimeException} thrown here, or a null listener,
   * ends the call as one thrown or returned by a handler does (the transport closes it with {@link
   * HandlerFailures#status the exception's status}, or {@link Status.Code#INTERNAL}).
   *
   * @param call the call, as the previous interceptor (or the transport) hands it on
   * @param next the rest of the chain: the next interceptor, and at its end the method's handler
   * @return the listener for the call's inbound signals
   */
  <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
      ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next);
}
