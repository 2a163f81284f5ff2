package io.sluice.rpc.mutiny;

import com.google.protobuf.MessageLite;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.reactor.ReactorClientCalls;
import reactor.adapter.JdkFlowAdapter;

/**
 * Client side of the Mutiny flavor; generated {@code Mutiny*Client} classes delegate here. Every
 * returned {@link Uni}/{@link Multi} is lazy: each subscription is a new call, cancelling it
 * cancels the call, and a {@link Multi} honours downstream demand. Failures are {@link
 * io.sluice.rpc.StatusException}s. Deadlines, headers and instrumentation come from the {@link
 * CallOptions}, as in the reactor flavor.
 *
 * <p><b>Threads.</b> The methods may be called from any thread. Responses arrive on the
 * connection's event loop, so operators downstream must not block there (move off with {@code
 * emitOn}); a client-side deadline fails the call on a Reactor timer thread.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class MutinyClientCalls {
  private MutinyClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> Uni<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Uni.createFrom()
        .publisher(JdkFlowAdapter.publisherToFlowPublisher(ReactorClientCalls.unary(requester, method, options, request)));
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> Multi<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Multi.createFrom()
        .publisher(
            JdkFlowAdapter.publisherToFlowPublisher(ReactorClientCalls.serverStreaming(requester, method, options, request)));
  }

  /** A client-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Uni<Resp> clientStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Multi<Req> requests) {
    return Uni.createFrom()
        .publisher(
            JdkFlowAdapter.publisherToFlowPublisher(
                ReactorClientCalls.clientStreaming(
                    requester, method, options, JdkFlowAdapter.flowPublisherToFlux(requests))));
  }

  /** A bidi-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Multi<Resp> bidiStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Multi<Req> requests) {
    return Multi.createFrom()
        .publisher(
            JdkFlowAdapter.publisherToFlowPublisher(
                ReactorClientCalls.bidiStreaming(
                    requester, method, options, JdkFlowAdapter.flowPublisherToFlux(requests))));
  }

  /** A fire-and-forget call: emits {@code null} once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> Uni<Void> fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Uni.createFrom()
        .publisher(
            JdkFlowAdapter.publisherToFlowPublisher(ReactorClientCalls.fireAndForget(requester, method, options, request)));
  }
}
