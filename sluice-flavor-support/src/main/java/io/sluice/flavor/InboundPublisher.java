package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.Objects;
import java.util.concurrent.Flow;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/**
 * The inbound half of a responder's channel (the requester's messages after the first), handed to
 * the handler as a single-use publisher of either kind. Each {@code request(n)} becomes a
 * REQUEST_N.
 *
 * <p>The subscriber becomes visible to the loop only once its {@code onSubscribe} has returned,
 * and demand signalled inside it is passed on only then (§1.3); a terminal signal arriving
 * meanwhile is delivered after it. Canceling it sends nothing while the handler's response is
 * still running (a responder cannot stop only the requester's half then): the requester stops
 * when its credit is used and what arrives is released; once the response completes, the requester
 * is told with CANCEL.
 *
 * <p><b>Threads.</b> {@code subscribe}, {@code request} and {@code cancel} may be called from any
 * thread. {@code onNext}, {@code onComplete} and {@code onError} run on the connection's event
 * loop, except a terminal signal that arrived while {@code onSubscribe} ran: that one is delivered
 * on the subscribing thread once {@code onSubscribe} returns.
 *
 * <p><b>Buffers.</b> Each message passed to {@code onNext} belongs to the subscriber, which must
 * release it. Messages that arrive when no subscriber can take them (canceled, or not yet
 * subscribed) are released here.
 */
public final class InboundPublisher extends Downstream
    implements Publisher<Message>, Flow.Publisher<Message> {
  private final StreamHandle handle;
  private boolean subscribed; // guarded by this
  private volatile boolean subscribing; // guarded by this when true
  private volatile boolean visible; // the subscriber's onSubscribe returned
  private long parkedDemand; // guarded by this
  private boolean terminated; // guarded by this
  private Throwable error; // guarded by this
  private volatile boolean canceled;
  private volatile boolean outboundDone;

  /**
   * @param handle the channel's handle
   * @param complete true when the requester already completed its half (nothing will arrive)
   */
  public InboundPublisher(StreamHandle handle, boolean complete) {
    this.handle = Objects.requireNonNull(handle, "handle");
    this.terminated = complete;
  }

  @Override
  public void subscribe(Subscriber<? super Message> s) {
    Objects.requireNonNull(s, "subscriber (Reactive Streams §1.9)");
    subscribe(s, null);
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Message> s) {
    Objects.requireNonNull(s, "subscriber (Reactive Streams §1.9)");
    subscribe(null, s);
  }

  private void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    synchronized (this) {
      if (subscribed) {
        refuse(rs, flow, new IllegalStateException("the channel's inbound allows one subscriber"));
        return;
      }
      subscribed = true;
      subscribing = true;
    }
    setSubscriber(rs, flow);
    signalOnSubscribe();
    boolean deliverTerminal;
    Throwable e;
    long parked;
    synchronized (this) {
      subscribing = false;
      visible = !canceled;
      deliverTerminal = terminated;
      e = error;
      parked = parkedDemand;
      parkedDemand = 0;
    }
    if (canceled) {
      return;
    }
    if (deliverTerminal) {
      if (e != null) {
        emitError(e);
      } else {
        emitComplete();
      }
    } else if (parked > 0) {
      handle.request(parked);
    }
  }

  @Override
  public void request(long n) {
    if (canceled) {
      return;
    }
    if (subscribing && n > 0) {
      synchronized (this) {
        if (subscribing) {
          parkedDemand = addCap(parkedDemand, n);
          return;
        }
      }
    }
    handle.request(n);
  }

  @Override
  public void cancel() {
    canceled = true;
    visible = false;
    forgetSubscriber();
    if (outboundDone) {
      handle.cancel();
    }
  }

  /** The handler's response completed: if this half was canceled, tell the requester. */
  void outboundCompleted() {
    outboundDone = true;
    if (canceled) {
      handle.cancel();
    }
  }

  /** An inbound message (event loop). */
  void next(Message m) {
    if (canceled || !visible) {
      m.release();
      return;
    }
    emitNext(m);
  }

  void complete() {
    terminate(null);
  }

  void fail(Throwable t) {
    terminate(t);
  }

  private void terminate(Throwable t) {
    boolean deliver;
    synchronized (this) {
      if (terminated) {
        return;
      }
      terminated = true;
      error = t;
      deliver = visible;
    }
    if (deliver && !canceled) {
      if (t != null) {
        emitError(t);
      } else {
        emitComplete();
      }
    }
  }
}
