package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.rpc.rsocket.RpcErrors;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Client side of the reactor flavor: starts calls over a {@link ReactorRequester}. Generated
 * {@code Reactor*Client} classes delegate here.
 *
 * <p>Every returned publisher is cold: the call starts on subscription, and each subscription is a
 * new call. Failures arrive as {@link StatusException}. With a timeout in the {@link CallOptions},
 * the deadline is sent to the server, and when it passes first on the client the call fails with
 * {@link Status.Code#DEADLINE_EXCEEDED} and its stream is cancelled.
 */
public final class ReactorClientCalls {
  private ReactorClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    Mono<Resp> call =
        Mono.defer(
            () -> {
              CallMetadata md = options.metadata(method);
              return requester
                  .requestResponse(ProtoMessages.first(requester.alloc(), md, request))
                  .map(m -> ProtoMessages.parse(method.responseParser(), m));
            });
    return deadline(call, options).onErrorMap(ReactorClientCalls::toStatus);
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    Flux<Resp> call =
        Flux.defer(
            () -> {
              CallMetadata md = options.metadata(method);
              return requester
                  .requestStream(ProtoMessages.first(requester.alloc(), md, request))
                  .map(m -> ProtoMessages.parse(method.responseParser(), m));
            });
    return deadline(call, options).onErrorMap(ReactorClientCalls::toStatus);
  }

  /**
   * A client-streaming call (request-channel). At least one request is needed: an empty {@code
   * requests} fails the call with INVALID_ARGUMENT without contacting the server.
   */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> clientStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    return channel(requester, method, options, requests).singleOrEmpty()
        .switchIfEmpty(
            Mono.error(
                () -> StatusException.of(Status.Code.INTERNAL, method.fullName() + " completed without a response")));
  }

  /** A bidi-streaming call (request-channel). At least one request is needed, as above. */
  public static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> bidiStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    return channel(requester, method, options, requests);
  }

  private static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> channel(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    Objects.requireNonNull(requests, "requests");
    Flux<Resp> call =
        Flux.defer(
            () -> {
              CallMetadata md = options.metadata(method);
              boolean[] first = {true};
              boolean[] sent = {false};
              Flux<Message> outbound =
                  Flux.from(requests)
                      .map(
                          r -> {
                            sent[0] = true;
                            if (first[0]) {
                              first[0] = false;
                              return ProtoMessages.first(requester.alloc(), md, r);
                            }
                            return ProtoMessages.next(requester.alloc(), r);
                          });
              return requester
                  .requestChannel(outbound)
                  .map(m -> ProtoMessages.parse(method.responseParser(), m))
                  .concatWith(
                      Mono.defer(
                          () ->
                              sent[0]
                                  ? Mono.empty()
                                  : Mono.error(
                                      StatusException.of(
                                          Status.Code.INVALID_ARGUMENT,
                                          method.fullName() + " needs at least one request message"))));
            });
    return deadline(call, options).onErrorMap(ReactorClientCalls::toStatus);
  }

  /** A fire-and-forget call: completes once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Void> fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    return Mono.defer(
            () ->
                requester.fireAndForget(
                    ProtoMessages.first(requester.alloc(), options.metadata(method), request)))
        .onErrorMap(ReactorClientCalls::toStatus);
  }

  private static <T> Mono<T> deadline(Mono<T> call, CallOptions options) {
    Duration timeout = options.timeout();
    return timeout == null ? call : call.timeout(timeout);
  }

  private static <T> Flux<T> deadline(Flux<T> call, CallOptions options) {
    Duration timeout = options.timeout();
    if (timeout == null) {
      return call;
    }
    // One deadline for the whole call, not one per element.
    return Flux.defer(
        () -> {
          long deadline = System.nanoTime() + timeout.toNanos();
          return call.timeout(
              Mono.delay(timeout),
              item -> Mono.delay(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        });
  }

  private static Throwable toStatus(Throwable t) {
    if (t instanceof TimeoutException) {
      return StatusException.of(Status.Code.DEADLINE_EXCEEDED, "deadline exceeded on the client");
    }
    return RpcErrors.toStatusException(t);
  }
}
