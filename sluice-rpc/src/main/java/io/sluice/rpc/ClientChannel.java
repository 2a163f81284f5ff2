package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * Makes {@link ClientCall}s: what a {@link ClientInterceptor} hands a call on to (grpc-java's
 * {@code Channel}). The last channel of a chain is the transport (an RSocket connection, a gRPC
 * channel, a balancer), reached through the flavors' runtime; {@link ClientInterceptors#intercept(
 * ClientChannel, ClientInterceptor...)} puts interceptors in front of any channel.
 *
 * <p>{@link #newCall} is generic, so a lambda cannot implement this interface. Thread-safe.
 */
public interface ClientChannel {
  /** A new call of {@code method} with {@code options}, not yet started. */
  <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> newCall(
      MethodDescriptor<Req, Resp> method, CallOptions options);
}
