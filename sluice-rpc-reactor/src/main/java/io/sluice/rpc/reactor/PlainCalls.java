package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.flavor.RequesterPublisher;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.rsocket.ProtoMessages;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The fast path of unary and server-streaming calls without a timeout, instrumentation or response
 * metadata listener: each call is one object ({@link UnaryCall}, {@link StreamCall}) that is at once
 * the publisher the caller gets, the subscription its subscriber sees and the core's stream
 * listener, which parses each response and maps failures to {@link io.sluice.rpc.StatusException}.
 * It replaces a chain of defer, map, error-mapping and single operators over the reactor
 * requester's publisher per call. Calls with a timeout, instrumentation or response metadata take
 * the general path of {@link ReactorClientCalls}, with the same signals.
 */
final class PlainCalls {
  private PlainCalls() {}

  /** True if a call with {@code options} may take this path. */
  static boolean applies(CallOptions options) {
    return options.timeout() == null
        && options.instrumentation() == io.sluice.rpc.RpcInstrumentation.NONE
        && options.responseMetadata() == null;
  }

  static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return new UnaryCall<>(requester.unwrap(), method, options, request);
  }

  static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return new StreamCall<>(requester.unwrap(), method, options, request);
  }

  /**
   * The first message of a call being subscribed by {@code s}: the encoded request, owned by the
   * caller from now on; or null after failing {@code s} (the encoding failed, or the connection is
   * not open).
   */
  static <Req extends MessageLite> Message first(
      Requester requester, MethodDescriptor<Req, ?> method, CallOptions options, Req request,
      CoreSubscriber<?> s) {
    Message m;
    try {
      m = ProtoMessages.first(requester.alloc(), options.metadata(method), request);
    } catch (Throwable e) {
      Operators.error(s, ReactorClientCalls.toStatus(e));
      return null;
    }
    if (!requester.isOpen()) {
      m.release();
      Operators.error(s, ReactorClientCalls.toStatus(RequesterPublisher.notOpen(requester)));
      return null;
    }
    return m;
  }
}
