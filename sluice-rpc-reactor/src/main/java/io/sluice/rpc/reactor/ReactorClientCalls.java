package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.InterceptedRequester;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ResponseMetadataListener;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.rpc.rsocket.RpcErrors;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
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
 * {@link Status.Code#DEADLINE_EXCEEDED} and its stream is cancelled. The options' {@link
 * CallOptions#instrumentation()} observes each call, and its {@link
 * CallOptions#responseMetadata()} listener receives each call's response headers and trailers.
 * Over a requester made by {@link io.sluice.rpc.ClientInterceptors#intercept} every call runs
 * through its {@link io.sluice.rpc.ClientInterceptor}s first (and so do the futures, rxjava,
 * mutiny, StreamObserver and blocking flavors, which call through here).
 *
 * <p><b>Threads.</b> The methods may be called from any thread. Responses arrive on the
 * connection's event loop, so operators downstream must not block there (move off with {@code
 * publishOn}); a client-side deadline fails the call on a Reactor timer thread.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class ReactorClientCalls {
  private ReactorClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    if (requester.unwrap() instanceof InterceptedRequester ir) {
      return InterceptedCalls.unary(ir, method, options, request);
    }
    if (PlainCalls.applies(options)) {
      return PlainCalls.unary(requester, method, options, request);
    }
    return call(
            method,
            options,
            md ->
                responses(
                        requester.requestResponse(ProtoMessages.first(requester.alloc(), md, request)),
                        options,
                        false)
                    .map(m -> ProtoMessages.parse(method.responseParser(), m)))
        .singleOrEmpty()
        .switchIfEmpty(Mono.error(() -> UnaryCall.noResponse(method)));
  }

  /** A server-streaming call (request-stream). */
  public static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    if (requester.unwrap() instanceof InterceptedRequester ir) {
      return InterceptedCalls.call(ir, method, options, request, null);
    }
    if (PlainCalls.applies(options)) {
      return PlainCalls.serverStreaming(requester, method, options, request);
    }
    return call(
        method,
        options,
        md ->
            responses(
                    requester.requestStream(ProtoMessages.first(requester.alloc(), md, request)), options, true)
                .map(m -> ProtoMessages.parse(method.responseParser(), m)));
  }

  /**
   * A client-streaming call (request-channel). An empty {@code requests} is a call without request
   * messages: its first frame carries the call metadata with the no-message flag.
   */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> clientStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    return channel(requester, method, options, requests)
        .singleOrEmpty()
        .switchIfEmpty(Mono.error(() -> UnaryCall.noResponse(method)));
  }

  /** A bidi-streaming call (request-channel); {@code requests} may be empty, as above. */
  public static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> bidiStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    return channel(requester, method, options, requests);
  }

  private static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> channel(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Publisher<Req> requests) {
    Objects.requireNonNull(requests, "requests");
    if (requester.unwrap() instanceof InterceptedRequester ir) {
      return InterceptedCalls.call(ir, method, options, null, requests);
    }
    return call(
        method,
        options,
        md -> {
          boolean[] first = {true};
          Flux<Message> outbound =
              Flux.from(requests)
                  .map(
                      r -> {
                        if (first[0]) {
                          first[0] = false;
                          return ProtoMessages.first(requester.alloc(), md, r);
                        }
                        return ProtoMessages.next(requester.alloc(), r);
                      })
                  // No request at all: the call metadata alone, flagged no-message.
                  .switchIfEmpty(Mono.fromSupplier(() -> ProtoMessages.firstWithoutMessage(requester.alloc(), md)));
          return responses(requester.requestChannel(outbound), options, true)
              .map(m -> ProtoMessages.parse(method.responseParser(), m));
        });
  }

  /**
   * The responses of a call as they arrive, or, when the options have a response metadata
   * listener, read by a {@link ResponseMetadataReader} ({@code stream}: for a stream or channel).
   */
  private static Flux<Message> responses(Publisher<Message> p, CallOptions options, boolean stream) {
    ResponseMetadataListener listener = options.responseMetadata();
    return listener == null ? Flux.from(p) : new ResponseMetadataReader(p, listener, stream);
  }

  /** A fire-and-forget call: completes once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> Mono<Void> fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    Objects.requireNonNull(request, "request");
    if (requester.unwrap() instanceof InterceptedRequester ir) {
      return InterceptedCalls.call(ir, method, options, request, null).then();
    }
    return call(
            method,
            options,
            md ->
                requester
                    .fireAndForget(ProtoMessages.first(requester.alloc(), md, request))
                    .thenMany(Flux.<Void>empty()))
        .then();
  }

  /**
   * One call: builds its metadata at subscription, applies the deadline to the whole call (not per
   * message), maps failures to {@link StatusException}, and reports to the instrumentation.
   */
  private static <T> Flux<T> call(
      MethodDescriptor<?, ?> method, CallOptions options, Function<CallMetadata, Publisher<T>> start) {
    return Flux.defer(
        () -> {
          CallMetadata md = options.metadata(method);
          Flux<T> f = Flux.from(start.apply(md));
          Duration timeout = options.timeout();
          if (timeout != null) {
            long deadline = System.nanoTime() + timeout.toNanos();
            f =
                f.timeout(
                    Mono.delay(timeout),
                    item -> Mono.delay(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
          }
          f = f.onErrorMap(ReactorClientCalls::toStatus);
          RpcInstrumentation instrumentation = options.instrumentation();
          return instrumentation == RpcInstrumentation.NONE ? f : observe(f, instrumentation, md, method);
        });
  }

  static <T> Flux<T> observe(
      Flux<T> f, RpcInstrumentation instrumentation, CallMetadata md, MethodDescriptor<?, ?> method) {
    RpcInstrumentation.CallObserver observer;
    try {
      observer = instrumentation.onCallStart(md, method);
    } catch (RuntimeException e) {
      return f;
    }
    long start = System.nanoTime();
    // The first response is seen on the call's one signal path (onNext before onComplete, never
    // at once; already seen when the observer does not want it: no clock read); the end may come
    // from two threads at once (the caller's cancel and the connection's completion), and is told
    // once.
    boolean[] first = {!CallObservation.observesFirstResponse(observer)};
    AtomicBoolean ended = new AtomicBoolean();
    return f.doOnNext(
            x -> {
              if (!first[0]) {
                first[0] = true;
                if (!ended.get()) { // a cancel that won the end: nothing after it
                  safely(() -> observer.onFirstResponse(System.nanoTime() - start));
                }
              }
            })
        .doOnError(e -> end(observer, ended, RpcErrors.fromThrowable(e), start))
        .doOnComplete(() -> end(observer, ended, Status.OK, start))
        .doOnCancel(() -> end(observer, ended, Status.of(Status.Code.CANCELLED, "cancelled by the client"), start));
  }

  private static void end(RpcInstrumentation.CallObserver o, AtomicBoolean ended, Status status, long start) {
    if (ended.compareAndSet(false, true)) {
      safely(() -> o.onEnd(status, System.nanoTime() - start));
    }
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException ignored) {
      // Instrumentation must not break calls.
    }
  }

  static Throwable toStatus(Throwable t) {
    if (t instanceof TimeoutException) {
      return StatusException.of(Status.Code.DEADLINE_EXCEEDED, "deadline exceeded on the client");
    }
    return RpcErrors.toStatusException(t);
  }
}
