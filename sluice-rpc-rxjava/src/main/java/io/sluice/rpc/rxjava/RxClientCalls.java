package io.sluice.rpc.rxjava;

import com.google.protobuf.MessageLite;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.reactor.ReactorClientCalls;

/**
 * Client side of the RxJava flavor; generated {@code Rx*Client} classes delegate here. Every
 * returned {@link Single}/{@link Flowable}/{@link Completable} is cold: each subscription is a new
 * call, disposing it cancels the call, and a {@link Flowable} honours downstream demand. Failures
 * are {@link io.sluice.rpc.StatusException}s. Deadlines, headers and instrumentation come from the
 * {@link CallOptions}, as in the reactor flavor.
 *
 * <p><b>Threads.</b> The methods may be called from any thread. Responses arrive on the
 * connection's event loop, so operators downstream must not block there (move off with {@code
 * observeOn}); a client-side deadline fails the call on a Reactor timer thread.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class RxClientCalls {
  private RxClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> Single<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Single.fromPublisher(ReactorClientCalls.unary(requester, method, options, request));
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> Flowable<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Flowable.fromPublisher(ReactorClientCalls.serverStreaming(requester, method, options, request));
  }

  /** A client-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Single<Resp> clientStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Flowable<Req> requests) {
    return Single.fromPublisher(ReactorClientCalls.clientStreaming(requester, method, options, requests));
  }

  /** A bidi-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Flowable<Resp> bidiStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Flowable<Req> requests) {
    return Flowable.fromPublisher(ReactorClientCalls.bidiStreaming(requester, method, options, requests));
  }

  /** A fire-and-forget call: completes once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> Completable fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Completable.fromPublisher(ReactorClientCalls.fireAndForget(requester, method, options, request));
  }
}
