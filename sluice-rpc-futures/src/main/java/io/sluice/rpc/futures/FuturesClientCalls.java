package io.sluice.rpc.futures;

import com.google.protobuf.MessageLite;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import reactor.adapter.JdkFlowAdapter;

/**
 * Client side of the futures flavor; generated {@code Futures*Client} classes delegate here. A
 * future starts its call at once, and cancelling it cancels the call; a {@link Flow.Publisher}
 * starts a new call per subscription and honours the subscriber's demand. Failures are {@link
 * StatusException}s (futures complete exceptionally with them). Deadlines, headers and
 * instrumentation come from the {@link CallOptions}, exactly as in the reactor flavor.
 *
 * <p><b>Threads.</b> The methods may be called from any thread. Futures complete, and publishers
 * signal, on the connection's event loop (a client-side deadline: on a Reactor timer thread), so
 * dependent stages that are not {@code *Async} run there and must not block.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class FuturesClientCalls {
  private FuturesClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> CompletableFuture<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return ReactorClientCalls.unary(requester, method, options, request).toFuture();
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> Flow.Publisher<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return JdkFlowAdapter.publisherToFlowPublisher(
        ReactorClientCalls.serverStreaming(requester, method, options, request));
  }

  /** A client-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> CompletableFuture<Resp> clientStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Flow.Publisher<Req> requests) {
    return ReactorClientCalls.clientStreaming(
            requester, method, options, JdkFlowAdapter.flowPublisherToFlux(requests))
        .toFuture();
  }

  /** A bidi-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Flow.Publisher<Resp> bidiStreaming(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Flow.Publisher<Req> requests) {
    return JdkFlowAdapter.publisherToFlowPublisher(
        ReactorClientCalls.bidiStreaming(
            requester, method, options, JdkFlowAdapter.flowPublisherToFlux(requests)));
  }

  /** A fire-and-forget call: completes once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> CompletableFuture<Void> fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return ReactorClientCalls.fireAndForget(requester, method, options, request).toFuture();
  }
}
