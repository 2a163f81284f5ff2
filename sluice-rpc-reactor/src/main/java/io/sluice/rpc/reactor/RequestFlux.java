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
 */
final class RequestFlux<Req extends MessageLite> extends Flux<Req> implements Subscription {
  private final ServerCall<Req, ?> call;
  private volatile CoreSubscriber<? super Req> subscriber;
  private volatile boolean cancelled;
  private boolean done;

  RequestFlux(ServerCall<Req, ?> call) {
    this.call = call;
  }

  @Override
  public void subscribe(CoreSubscriber<? super Req> actual) {
    synchronized (this) {
      if (subscriber != null) {
        Operators.error(actual, new IllegalStateException("the request stream allows one subscriber"));
        return;
      }
      subscriber = actual;
    }
    actual.onSubscribe(this);
  }

  void onMessage(Req m) {
    CoreSubscriber<? super Req> s = subscriber;
    if (s != null && !cancelled && !done) {
      s.onNext(m);
    }
  }

  void onHalfClose() {
    CoreSubscriber<? super Req> s = subscriber;
    if (s != null && !cancelled && !done) {
      done = true;
      s.onComplete();
    }
  }

  void onCancel() {
    CoreSubscriber<? super Req> s = subscriber;
    if (s != null && !cancelled && !done) {
      done = true;
      s.onError(new StatusException(Status.of(Status.Code.CANCELLED, "call cancelled")));
    }
  }

  @Override
  public void request(long n) {
    if (!cancelled) {
      call.request(n);
    }
  }

  @Override
  public void cancel() {
    // The handler no longer wants requests; the call itself ends through the response publisher.
    cancelled = true;
  }
}
