package io.sluice.flavor;

import io.sluice.Message;
import java.util.concurrent.Flow;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A subscriber of either kind (Reactive Streams or {@link Flow}) to a publisher of messages, whose
 * demand may be signalled before the subscription arrives: it is parked and handed over then, and
 * a cancel before arrival cancels the subscription as it arrives. Thread-safe.
 */
abstract class Upstream implements Subscriber<Message>, Flow.Subscriber<Message> {
  private volatile Object upstream; // Subscription or Flow.Subscription
  private volatile boolean canceled;
  private long parked; // guarded by this

  @Override
  public final void onSubscribe(Subscription s) {
    setUpstream(s);
  }

  @Override
  public final void onSubscribe(Flow.Subscription s) {
    setUpstream(s);
  }

  private void setUpstream(Object s) {
    if (s == null) {
      throw new NullPointerException("onSubscribe(null) (Reactive Streams §2.13)");
    }
    if (upstream != null) {
      cancel(s); // §2.5: a second subscription is canceled
      return;
    }
    long n;
    synchronized (this) {
      upstream = s;
      n = parked;
      parked = 0;
    }
    if (canceled) {
      cancel(s);
      return;
    }
    onUpstream();
    if (n > 0) {
      request(s, n);
    }
  }

  /** Called once the subscription has arrived (and was not canceled before). */
  void onUpstream() {}

  final void requestUpstream(long n) {
    Object s = upstream;
    if (s == null) {
      synchronized (this) {
        s = upstream;
        if (s == null) {
          parked = Downstream.addCap(parked, n);
          return;
        }
      }
    }
    request(s, n);
  }

  final void cancelUpstream() {
    canceled = true;
    Object s = upstream;
    if (s != null) {
      cancel(s);
    }
  }

  final boolean upstreamCanceled() {
    return canceled;
  }

  private static void request(Object s, long n) {
    if (s instanceof Subscription) {
      ((Subscription) s).request(n);
    } else {
      ((Flow.Subscription) s).request(n);
    }
  }

  private static void cancel(Object s) {
    if (s instanceof Subscription) {
      ((Subscription) s).cancel();
    } else {
      ((Flow.Subscription) s).cancel();
    }
  }
}
