package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.rsocket.ProtoMessages;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CorePublisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The fast path of unary and server-streaming calls without a timeout, instrumentation or
 * response metadata listener: one publisher that, on subscription, encodes the first message and subscribes
 * one {@link Responses} subscriber to the requester's publisher, which parses each response and
 * maps failures to {@link io.sluice.rpc.StatusException}. It replaces a chain of defer, map,
 * error-mapping and single operators per call. Calls with a timeout or instrumentation take the
 * general path of {@link ReactorClientCalls}, with the same signals.
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
    return new UnaryMono<>(requester, method, options, request);
  }

  static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return new StreamFlux<>(requester, method, options, request);
  }

  /** Encodes the first message and subscribes {@code actual} to the call, or fails it. */
  private static <Req extends MessageLite, Resp extends MessageLite> void start(
      ReactorRequester requester,
      MethodDescriptor<Req, Resp> method,
      CallOptions options,
      Req request,
      BiFunction<ReactorRequester, Message, Publisher<Message>> interaction,
      CoreSubscriber<? super Resp> actual) {
    Message first;
    try {
      first = ProtoMessages.first(requester.alloc(), options.metadata(method), request);
    } catch (Throwable e) {
      Operators.error(actual, ReactorClientCalls.toStatus(e));
      return;
    }
    Publisher<Message> call = interaction.apply(requester, first);
    Responses<Resp> responses = new Responses<>(actual, method.responseParser());
    if (call instanceof CorePublisher) {
      // An inner subscription, as reactor's own operators make it: the assembly hooks already
      // ran for the publisher the caller subscribed to.
      ((CorePublisher<Message>) call).subscribe(responses);
    } else {
      call.subscribe(responses);
    }
  }

  private static final class UnaryMono<Req extends MessageLite, Resp extends MessageLite> extends Mono<Resp> {
    private final ReactorRequester requester;
    private final MethodDescriptor<Req, Resp> method;
    private final CallOptions options;
    private final Req request;

    UnaryMono(ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
      this.requester = requester;
      this.method = method;
      this.options = options;
      this.request = request;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Resp> actual) {
      start(requester, method, options, request, ReactorRequester::requestResponse, actual);
    }
  }

  private static final class StreamFlux<Req extends MessageLite, Resp extends MessageLite> extends Flux<Resp> {
    private final ReactorRequester requester;
    private final MethodDescriptor<Req, Resp> method;
    private final CallOptions options;
    private final Req request;

    StreamFlux(ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
      this.requester = requester;
      this.method = method;
      this.options = options;
      this.request = request;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Resp> actual) {
      start(requester, method, options, request, ReactorRequester::requestStream, actual);
    }
  }

  /**
   * Parses each response message (releasing it) and hands the value on; a message that cannot be
   * parsed cancels the call and fails it with INTERNAL; other failures become StatusExceptions.
   */
  static final class Responses<Resp> implements CoreSubscriber<Message>, Subscription {
    private final CoreSubscriber<? super Resp> actual;
    private final Parser<Resp> parser;
    private Subscription upstream;
    private boolean done;

    Responses(CoreSubscriber<? super Resp> actual, Parser<Resp> parser) {
      this.actual = actual;
      this.parser = parser;
    }

    @Override
    public Context currentContext() {
      return actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
      if (Operators.validate(upstream, s)) {
        upstream = s;
        actual.onSubscribe(this);
      }
    }

    @Override
    public void onNext(Message m) {
      if (done) {
        m.release();
        return;
      }
      Resp value;
      try {
        value = ProtoMessages.parse(parser, m);
      } catch (RuntimeException e) {
        done = true;
        upstream.cancel();
        actual.onError(ReactorClientCalls.toStatus(e));
        return;
      }
      actual.onNext(value);
    }

    @Override
    public void onError(Throwable t) {
      if (done) {
        Operators.onErrorDropped(t, actual.currentContext());
        return;
      }
      done = true;
      actual.onError(ReactorClientCalls.toStatus(t));
    }

    @Override
    public void onComplete() {
      if (!done) {
        done = true;
        actual.onComplete();
      }
    }

    @Override
    public void request(long n) {
      upstream.request(n);
    }

    @Override
    public void cancel() {
      upstream.cancel();
    }
  }
}
