package io.sluice.flavor;

import io.sluice.Message;
import java.util.concurrent.Flow;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * One subscriber of either kind (Reactive Streams or {@link Flow}) and the subscription it sees.
 * Subclasses are at once that subscription and, usually, the core's stream listener: signals go
 * straight from the connection's event loop to the subscriber, without an adapter in between.
 *
 * <p>The subscriber is forgotten once the stream ends or is canceled (§3.13); the emit methods read
 * it once per signal and drop signals when it is gone.
 */
abstract class Downstream implements Subscription, Flow.Subscription {
  private volatile Subscriber<? super Message> rs;
  private volatile Flow.Subscriber<? super Message> flow;

  /** Stores the subscriber; exactly one of the two is non-null. */
  final void setSubscriber(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    this.rs = rs;
    this.flow = flow;
  }

  final boolean hasSubscriber() {
    return rs != null || flow != null;
  }

  final void forgetSubscriber() {
    rs = null;
    flow = null;
  }

  /** Calls the subscriber's onSubscribe with this subscription. */
  final void signalOnSubscribe() {
    Subscriber<? super Message> r = rs;
    if (r != null) {
      r.onSubscribe(this);
      return;
    }
    Flow.Subscriber<? super Message> f = flow;
    if (f != null) {
      f.onSubscribe(this);
    }
  }

  /** Delivers one message, or releases it when the subscriber is gone. */
  final void emitNext(Message m) {
    Subscriber<? super Message> r = rs;
    if (r != null) {
      r.onNext(m);
      return;
    }
    Flow.Subscriber<? super Message> f = flow;
    if (f != null) {
      f.onNext(m);
      return;
    }
    m.release();
  }

  /** Delivers the error (once) and forgets the subscriber. */
  final void emitError(Throwable t) {
    Subscriber<? super Message> r = rs;
    Flow.Subscriber<? super Message> f = flow;
    forgetSubscriber();
    if (r != null) {
      r.onError(t);
    } else if (f != null) {
      f.onError(t);
    }
  }

  /** Delivers completion (once) and forgets the subscriber. */
  final void emitComplete() {
    Subscriber<? super Message> r = rs;
    Flow.Subscriber<? super Message> f = flow;
    forgetSubscriber();
    if (r != null) {
      r.onComplete();
    } else if (f != null) {
      f.onComplete();
    }
  }

  /** Refuses a subscriber: an empty subscription, then the error (§1.9). */
  static void refuse(
      Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow, Throwable error) {
    if (rs != null) {
      rs.onSubscribe(EmptySubscription.INSTANCE);
      rs.onError(error);
    } else {
      flow.onSubscribe(EmptySubscription.INSTANCE);
      flow.onError(error);
    }
  }

  /** Adds two demands, saturating at {@link Long#MAX_VALUE}. */
  static long addCap(long a, long b) {
    return CallMachine.addDemand(a, b);
  }

  static IllegalArgumentException badRequest(long n) {
    return new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
  }

  static IllegalStateException secondSubscriber() {
    return new IllegalStateException("a Sluice publisher allows only one subscriber");
  }

  enum EmptySubscription implements Subscription, Flow.Subscription {
    INSTANCE;

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}
  }
}
