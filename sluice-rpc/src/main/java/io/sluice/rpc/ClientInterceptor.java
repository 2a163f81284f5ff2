package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * Runs around every call a client makes through a requester made by {@link
 * ClientInterceptors#intercept(io.sluice.Requester, ClientInterceptor...)}, in every flavor and
 * over RSocket and gRPC alike (grpc-java's {@code ClientInterceptor}). It may change the call's
 * options (a timeout, say), add request headers, watch or replace requests and responses, see the
 * response headers, trailers and status, or fail the call before anything is sent.
 *
 * <pre>{@code
 * ClientInterceptor auth = new ClientInterceptor() {
 *   public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
 *       MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
 *     return new ForwardingClientCall<Req, Resp>(next.newCall(method, options)) {
 *       public void start(ClientCall.Listener<Resp> listener, Headers headers) {
 *         super.start(listener, headers.toBuilder().add("authorization", "Bearer " + token).build());
 *       }
 *     };
 *   }
 * };
 * }</pre>
 *
 * <p>{@link #interceptCall} is generic, so a lambda cannot implement this interface: use a class.
 *
 * <p><b>Threads.</b> {@link #interceptCall} runs on the thread that starts the call (the one that
 * subscribes, or calls the blocking or future method), once per call, and must not block. One
 * interceptor serves many calls at once: state kept across calls must be thread-safe. The {@link
 * ClientCall} it returns follows that class's contract. <b>Buffers.</b> None.
 */
public interface ClientInterceptor {
  /**
   * Intercepts one call: normally returns {@code next.newCall(method, options)}, possibly with
   * other options, wrapped in a {@link ForwardingClientCall}. To fail the call without sending it,
   * return a call whose {@link ClientCall#start} calls the listener's {@link
   * ClientCall.Listener#onClose} with the failure and never calls {@code next} ({@link
   * ClientInterceptors#failing}).
   *
   * @param method the method called
   * @param options the call's options as the previous interceptor passed them on
   * @param next the rest of the chain, ending at the transport
   */
  <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
      MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next);
}
