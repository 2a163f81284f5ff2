package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.Requester;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.Headers;
import io.sluice.rpc.InterceptedRequester;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * Calls through {@link io.sluice.rpc.ClientInterceptor}s: a requester made by {@link
 * io.sluice.rpc.ClientInterceptors#intercept} routes every flavor's calls here. Each subscription
 * asks the chain for a {@link ClientCall}, starts it with the options' headers, sends the request
 * (or pulls the request stream as the call {@link ClientCall#isReady is ready}) and hands the
 * listener's signals to the subscriber; the chain ends at a {@link RequesterCall} on the
 * requester underneath.
 */
final class InterceptedCalls {
  private InterceptedCalls() {}

  /** Makes the chain's last channel: calls over the intercepted requester's delegate. */
  static final Function<Requester, ClientChannel> TERMINAL = Terminal::new;

  static ClientChannel channel(InterceptedRequester r) {
    return r.channel(TERMINAL);
  }

  /** A call of {@code method}; {@code request} for a single-request method, else {@code requests}. */
  static <Req extends MessageLite, Resp extends MessageLite> Flux<Resp> call(
      InterceptedRequester r, MethodDescriptor<Req, Resp> method, CallOptions options, Req request,
      Publisher<Req> requests) {
    return new CallFlux<>(channel(r), method, options, request, requests, false);
  }

  /**
   * A unary call: exactly one response, else INTERNAL. The subscriber subscribes to the call
   * itself ({@link Mono#fromDirect}, no operator between), so its {@code request(n <= 0)} reaches
   * the call and fails it (Reactive Streams §3.9) instead of being dropped by an operator.
   */
  static <Req extends MessageLite, Resp extends MessageLite> Mono<Resp> unary(
      InterceptedRequester r, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return Mono.fromDirect(new CallFlux<>(channel(r), method, options, request, null, true));
  }

  private static final class Terminal implements ClientChannel {
    private final ReactorRequester requester;

    Terminal(Requester delegate) {
      this.requester = new ReactorRequester(delegate);
    }

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> newCall(
        MethodDescriptor<Req, Resp> method, CallOptions options) {
      return new RequesterCall<>(requester, method, options);
    }

    @Override
    public String toString() {
      return requester.unwrap().toString();
    }
  }

  /** One call per subscription. */
  private static final class CallFlux<Req extends MessageLite, Resp extends MessageLite> extends Flux<Resp> {
    private final ClientChannel channel;
    private final MethodDescriptor<Req, Resp> method;
    private final CallOptions options;
    private final Req request;
    private final Publisher<Req> requests;
    private final boolean unary;

    CallFlux(ClientChannel channel, MethodDescriptor<Req, Resp> method, CallOptions options, Req request,
        Publisher<Req> requests, boolean unary) {
      this.channel = channel;
      this.method = method;
      this.options = options;
      this.request = request;
      this.requests = requests;
      this.unary = unary;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Resp> actual) {
      ClientCall<Req, Resp> call;
      try {
        call = channel.newCall(method, options);
      } catch (RuntimeException e) {
        Operators.error(actual, ReactorClientCalls.toStatus(e));
        return;
      }
      Bridge<Req, Resp> b = new Bridge<>(Operators.serialize(actual), call, unary ? method : null);
      actual.onSubscribe(b);
      if (b.subscribed()) {
        return; // a request(n <= 0) inside onSubscribe: failed now, the call never started
      }
      try {
        call.start(b, options.headers());
      } catch (RuntimeException e) {
        b.onClose(Status.fromThrowable(e), Headers.EMPTY);
        return;
      }
      b.started();
      if (requests == null) {
        try {
          call.sendMessage(request);
          call.halfClose();
        } catch (RuntimeException e) {
          call.cancel("the request could not be sent", e);
        }
      } else {
        requests.subscribe(b.pump);
      }
    }
  }

  /**
   * The subscriber's subscription and the call's listener. The subscriber is serialized: the
   * listener's signals come from the transport's thread, a {@code request(n <= 0)}'s error from the
   * caller's (Reactive Streams §1.3).
   */
  private static final class Bridge<Req extends MessageLite, Resp extends MessageLite> extends ClientCall.Listener<Resp>
      implements Subscription {
    private final CoreSubscriber<? super Resp> actual;
    private final ClientCall<Req, Resp> call;
    final Pump<Req> pump;
    private final AtomicBoolean done = new AtomicBoolean();
    private boolean started; // guarded by this
    private boolean subscribing = true; // guarded by this: onSubscribe has not returned
    private IllegalArgumentException badDemand; // guarded by this: a request(n <= 0) inside onSubscribe
    private long early; // guarded by this: demand before the start
    /** A unary call's method (exactly one response), or null. */
    private final MethodDescriptor<Req, Resp> unary;
    private int responses; // the listener's thread

    Bridge(CoreSubscriber<? super Resp> actual, ClientCall<Req, Resp> call, MethodDescriptor<Req, Resp> unary) {
      this.actual = actual;
      this.call = call;
      this.pump = new Pump<>(call);
      this.unary = unary;
    }

    /** Ends the call from this side: cancels it and fails the subscriber with {@code e}, once. */
    private void fail(String why, Throwable e) {
      if (done.compareAndSet(false, true)) {
        pump.stop();
        call.cancel(why, e);
        actual.onError(e);
      }
    }

    /**
     * The subscriber's onSubscribe has returned. True if it asked for {@code n <= 0} in it (the
     * subscriber is failed now, unless it cancelled meanwhile) or cancelled in it: the call is not
     * to be started.
     */
    boolean subscribed() {
      IllegalArgumentException e;
      synchronized (this) {
        subscribing = false;
        e = badDemand;
      }
      if (e == null) {
        return done.get(); // cancelled inside onSubscribe: nothing to start
      }
      if (done.compareAndSet(false, true)) {
        pump.stop();
        actual.onError(e);
      }
      return true;
    }

    void started() {
      long n;
      synchronized (this) {
        started = true;
        n = early;
        early = 0;
      }
      if (n > 0 && !done.get()) {
        call.request(n);
      }
    }

    @Override
    public void request(long n) {
      if (n <= 0) { // §3.9: the call is cancelled and the subscriber told why, as it is
        synchronized (this) {
          if (subscribing) { // told once onSubscribe has returned (§1.3, §3.3)
            if (badDemand == null) {
              badDemand = new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
            }
            return;
          }
        }
        fail(
            "the subscriber asked for " + n + " responses",
            new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n));
        return;
      }
      synchronized (this) {
        if (!started) {
          early = early + n < 0 ? Long.MAX_VALUE : early + n;
          return;
        }
      }
      call.request(n);
    }

    @Override
    public void cancel() {
      if (done.compareAndSet(false, true)) {
        pump.stop();
        call.cancel("cancelled by the client", null);
      }
    }

    @Override
    public void onMessage(Resp message) {
      if (done.get()) {
        return;
      }
      if (unary != null && ++responses > 1) {
        fail("more than one response", StatusException.of(Status.Code.INTERNAL, unary.fullName() + ": more than one response"));
        return;
      }
      actual.onNext(message);
    }

    @Override
    public void onReady() {
      pump.pull();
    }

    @Override
    public void onClose(Status status, Headers trailers) {
      if (!done.compareAndSet(false, true)) {
        return;
      }
      pump.stop();
      if (status.isOk() && unary != null && responses == 0) {
        actual.onError(UnaryCall.noResponse(unary));
      } else if (status.isOk()) {
        actual.onComplete();
      } else {
        actual.onError(new StatusException(status, trailers, status.cause()));
      }
    }
  }

  /** Pulls the caller's requests one at a time while the call is ready, and sends them. */
  private static final class Pump<Req extends MessageLite> implements CoreSubscriber<Req> {
    private final ClientCall<Req, ?> call;
    private final AtomicReference<Subscription> upstream = new AtomicReference<>();
    private final AtomicBoolean outstanding = new AtomicBoolean();
    private volatile boolean stopped;

    Pump(ClientCall<Req, ?> call) {
      this.call = call;
    }

    @Override
    public void onSubscribe(Subscription s) {
      if (!upstream.compareAndSet(null, s) || stopped) {
        s.cancel();
        return;
      }
      pull();
    }

    void pull() {
      Subscription s = upstream.get();
      if (s != null && !stopped && call.isReady() && outstanding.compareAndSet(false, true)) {
        s.request(1);
      }
    }

    void stop() {
      stopped = true;
      Subscription s = upstream.getAndSet(Operators.cancelledSubscription());
      if (s != null) {
        s.cancel();
      }
    }

    @Override
    public void onNext(Req r) {
      outstanding.set(false);
      if (!stopped) {
        call.sendMessage(r);
        pull();
      }
    }

    @Override
    public void onError(Throwable t) {
      if (!stopped) {
        call.cancel("the request stream failed", t);
      }
    }

    @Override
    public void onComplete() {
      if (!stopped) {
        call.halfClose();
      }
    }
  }
}
