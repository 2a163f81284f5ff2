package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The stream of requests of a client-streaming or bidi call, as the handler sees it. Single
 * subscriber; its {@code request(n)} becomes {@link ServerCall#request(long)}. Signals come from
 * the event loop.
 *
 * <p>Reactive Streams: nothing reaches the subscriber while its {@code onSubscribe} runs (§1.3):
 * demand made inside it is passed on once it has returned, and a half-close or cancel that came
 * meanwhile (or before a late subscriber came at all) is signalled then. A {@code request(n <= 0)}
 * (§3.9) fails the subscriber with an {@link IllegalArgumentException}, cancels the handler's
 * response publisher ({@code onBadDemand}) and ends the call INTERNAL. The subscriber is serialized,
 * since that error comes from the handler's thread and the requests from the loop.
 */
final class RequestFlux<Req extends MessageLite> extends Flux<Req> implements Subscription {
  private final ServerCall<Req, ?> call;
  private final Runnable onBadDemand;
  private volatile boolean cancelled; // the subscriber wants no more requests

  // Guarded by this.
  private CoreSubscriber<? super Req> subscriber; // serialized; null until subscribed
  private boolean ready; // onSubscribe has returned: signals go to the subscriber
  private long parked; // demand made inside onSubscribe
  private boolean terminated; // a terminal signal was given, or is owed to a subscriber not ready
  private Throwable owedError; // the terminal signal owed (null with terminated: complete)

  RequestFlux(ServerCall<Req, ?> call, Runnable onBadDemand) {
    this.call = call;
    this.onBadDemand = onBadDemand;
  }

  @Override
  public void subscribe(CoreSubscriber<? super Req> actual) {
    synchronized (this) {
      if (subscriber != null) {
        Operators.error(actual, new IllegalStateException("the request stream allows one subscriber"));
        return;
      }
      subscriber = Operators.serialize(actual);
    }
    actual.onSubscribe(this);
    CoreSubscriber<? super Req> s;
    long n;
    boolean end;
    Throwable error;
    synchronized (this) {
      ready = true;
      s = subscriber;
      n = parked;
      parked = 0;
      end = terminated;
      error = owedError;
      owedError = null;
    }
    if (end) {
      if (error != null) {
        s.onError(error);
      } else {
        s.onComplete();
      }
    } else if (n > 0 && !cancelled) {
      call.request(n);
    }
  }

  /** The subscriber, if signals may reach it now; null otherwise. */
  private synchronized CoreSubscriber<? super Req> readySubscriber() {
    return ready && !terminated ? subscriber : null;
  }

  void onMessage(Req m) {
    CoreSubscriber<? super Req> s = readySubscriber();
    if (s != null && !cancelled) {
      s.onNext(m);
    }
  }

  void onHalfClose() {
    terminate(null);
  }

  void onCancel() {
    terminate(new StatusException(Status.of(Status.Code.CANCELLED, "call cancelled")));
  }

  /** The terminal signal, once: now if the subscriber is ready, else when it is. */
  private void terminate(Throwable error) {
    CoreSubscriber<? super Req> s;
    synchronized (this) {
      if (terminated) {
        return;
      }
      terminated = true;
      if (!ready) {
        owedError = error;
        return;
      }
      s = subscriber;
    }
    if (cancelled) {
      return;
    }
    if (error != null) {
      s.onError(error);
    } else {
      s.onComplete();
    }
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      badDemand(n);
      return;
    }
    synchronized (this) {
      if (!ready) {
        parked = parked + n < 0 ? Long.MAX_VALUE : parked + n;
        return;
      }
    }
    if (!cancelled) {
      call.request(n);
    }
  }

  private void badDemand(long n) {
    IllegalArgumentException e =
        new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
    // The responses are cancelled and the call ended INTERNAL before the subscriber hears of it: a
    // handler whose responses follow its requests passes the error on to them, and the UNKNOWN that
    // error would end the call with must find it ended.
    onBadDemand.run();
    call.close(Status.of(Status.Code.INTERNAL, "the handler asked for " + n + " requests (Reactive Streams §3.9)"));
    terminate(e);
    cancelled = true;
  }

  @Override
  public void cancel() {
    // The handler no longer wants requests; the call itself ends through the response publisher.
    cancelled = true;
  }
}
