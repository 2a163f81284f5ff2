package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.HandlerFailures;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Runs one server call of a reactor handler. It is the call's listener, the subscriber of the
 * handler's response publisher, and (for client-streaming methods) the source of the request Flux.
 *
 * <p>Listener callbacks arrive on the event loop; the response publisher may signal on any thread.
 * The bridge is itself the response subscription, a {@link Operators.DeferredSubscription}, so
 * demand that arrives before the handler's publisher subscribes is kept and handed over.
 */
final class ServerCallBridge<Req extends MessageLite, Resp extends MessageLite>
    extends Operators.DeferredSubscription // the response subscription: one object less per call
    implements ServerCall.Listener<Req>, CoreSubscriber<Resp> {
  private final ServerCall<Req, Resp> call;
  private final MethodKind kind;
  private final Function<Req, Publisher<Resp>> single;
  private final RequestFlux<Req> requests;
  private Context context; // made on first use; immutable, so a racy publication is harmless
  private boolean gotRequest;

  ServerCallBridge(
      ServerCall<Req, Resp> call,
      MethodKind kind,
      Function<Req, ? extends Publisher<Resp>> single,
      Function<Flux<Req>, ? extends Publisher<Resp>> streaming) {
    this(call, kind, single, streaming, true);
  }

  /** {@code requestNow}: a single-request call asks for its request (false when it has it). */
  @SuppressWarnings("unchecked")
  private ServerCallBridge(
      ServerCall<Req, Resp> call,
      MethodKind kind,
      Function<Req, ? extends Publisher<Resp>> single,
      Function<Flux<Req>, ? extends Publisher<Resp>> streaming,
      boolean requestNow) {
    this.call = call;
    this.kind = kind;
    this.single = (Function<Req, Publisher<Resp>>) single;
    if (streaming != null) {
      requests = new RequestFlux<>(call, this::cancel); // a bad request(n) cancels the responses
      subscribeTo(() -> streaming.apply(requests));
    } else {
      requests = null;
      if (requestNow) {
        call.request(1);
      }
    }
  }

  private void subscribeTo(java.util.function.Supplier<? extends Publisher<Resp>> body) {
    Publisher<Resp> p;
    try {
      p = body.get();
      if (p == null) {
        throw new NullPointerException("the handler returned null");
      }
    } catch (Throwable e) {
      HandlerFailures.close(call, e);
      return;
    }
    p.subscribe(this);
  }

  // ServerCall.Listener, on the event loop.

  @Override
  public void onMessage(Req message) {
    if (requests != null) {
      requests.onMessage(message);
      return;
    }
    if (gotRequest) {
      call.close(Status.of(Status.Code.INTERNAL, "more than one request for a single-request method"));
      return;
    }
    gotRequest = true;
    Publisher<Resp> p;
    try {
      p = single.apply(message);
      if (p == null) {
        throw new NullPointerException("the handler returned null");
      }
    } catch (Throwable e) {
      HandlerFailures.close(call, e);
      return;
    }
    if (kind == MethodKind.UNARY && p instanceof Fuseable.ScalarCallable) {
      // Mono.just / empty / error: the answer is known now and a unary answer needs no demand,
      // so it goes out without a subscription (as reactor's own operators treat scalar sources).
      answerNow(call, p);
      return;
    }
    p.subscribe(this);
  }

  /**
   * {@link io.sluice.rpc.UnaryCallHandler#startUnary}: runs the unary method on its request. A
   * scalar answer goes out at once and the call needs no bridge ({@link #ENDED} is returned);
   * otherwise a bridge subscribes to the answer and is the call's listener.
   */
  static <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> startUnary(
      ServerCall<Req, Resp> call, Function<Req, ? extends Publisher<Resp>> method, Req request) {
    Publisher<Resp> p;
    try {
      p = method.apply(request);
      if (p == null) {
        throw new NullPointerException("the handler returned null");
      }
    } catch (Throwable e) {
      HandlerFailures.close(call, e);
      return ended();
    }
    if (p instanceof Fuseable.ScalarCallable) {
      answerNow(call, p);
      return ended();
    }
    ServerCallBridge<Req, Resp> bridge = new ServerCallBridge<>(call, MethodKind.UNARY, method, null, false);
    bridge.gotRequest = true;
    p.subscribe(bridge);
    return bridge;
  }

  /** The listener of a call answered at once: the call is closed, so nothing reaches it. */
  private static final ServerCall.Listener<Object> ENDED =
      new ServerCall.Listener<Object>() {
        @Override
        public void onMessage(Object message) {}

        @Override
        public void onHalfClose() {}

        @Override
        public void onCancel() {}

        @Override
        public void onReady(long n) {}
      };

  @SuppressWarnings("unchecked")
  private static <Req> ServerCall.Listener<Req> ended() {
    return (ServerCall.Listener<Req>) ENDED;
  }

  @SuppressWarnings("unchecked")
  private static <Req extends MessageLite, Resp extends MessageLite> void answerNow(
      ServerCall<Req, Resp> call, Publisher<Resp> scalar) {
    Resp value;
    try {
      value = ((Callable<Resp>) scalar).call();
    } catch (Throwable e) {
      HandlerFailures.close(call, Exceptions.unwrap(e));
      return;
    }
    if (value != null) {
      call.sendMessage(value);
    }
    call.close(Status.OK);
  }

  @Override
  public void onHalfClose() {
    if (requests != null) {
      requests.onHalfClose();
    } else if (!gotRequest) {
      call.close(Status.of(Status.Code.INVALID_ARGUMENT, "call ended without a request"));
    }
  }

  @Override
  public void onCancel() {
    cancel();
    if (requests != null) {
      requests.onCancel();
    }
  }

  @Override
  public void onReady(long n) {
    request(n);
  }

  @Override
  public Context currentContext() {
    Context c = context;
    if (c == null) {
      c = Context.of(ReactorRpc.CALL_METADATA, call.metadata());
      context = c;
    }
    return c;
  }

  // Subscriber of the handler's responses, any thread (serialized by Reactive Streams rules).

  @Override
  public void onSubscribe(Subscription s) {
    if (kind == MethodKind.FIRE_AND_FORGET) {
      set(s);
      s.request(Long.MAX_VALUE); // nobody downstream: consume whatever the handler emits
      return;
    }
    set(s);
  }

  @Override
  public void onNext(Resp resp) {
    if (resp != null) {
      call.sendMessage(resp);
    }
  }

  @Override
  public void onError(Throwable t) {
    HandlerFailures.close(call, t);
  }

  @Override
  public void onComplete() {
    call.close(Status.OK);
  }
}
