package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.OnStreamLoop;
import io.sluice.flavor.RequesterPublisher;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * A unary call on the fast path of {@link PlainCalls} as one object: the {@link Mono} the caller
 * gets, the {@link Subscription} its subscriber sees and the core's {@link StreamListener} of the
 * request-response stream. The response goes from the event loop through the parser straight to
 * the subscriber, with no adapter, publisher or subscription object in between.
 *
 * <p>The Mono stays cold and may be subscribed again: the first subscription uses this object, each
 * later one a fresh copy (each subscription is a new call).
 *
 * <p>The call starts at the subscriber's first {@code request(n)}, once its {@code onSubscribe} has
 * returned (demand signalled inside {@code onSubscribe} is parked until then, §1.3). {@code
 * cancel} before the start sends nothing; after it, the stream is cancelled, and a response that
 * still arrives is released unread. A response that cannot be parsed cancels the stream and fails
 * the call with INTERNAL; every failure reaches the subscriber as a {@link
 * io.sluice.rpc.StatusException}, except a {@code request(n <= 0)}'s, an {@link
 * IllegalArgumentException} as Reactive Streams §3.9 requires (which also cancels the stream).
 *
 * <p><b>Threads.</b> {@code subscribe}, {@code request} and {@code cancel} may be called from any
 * thread; the stream's signals arrive on the connection's event loop.
 *
 * <p><b>Buffers.</b> The encoded request is owned from {@code subscribe}: handed to the core at the
 * start, or released here when the call ends first. The response message is released once parsed.
 */
final class UnaryCall<Req extends MessageLite, Resp extends MessageLite> extends Mono<Resp>
    implements Subscription, StreamListener {
  private static final int FRESH = 0;
  private static final int SUBSCRIBING = 1; // inside the subscriber's onSubscribe
  private static final int SUBSCRIBED = 2;
  private static final int STARTED = 3;
  private static final int CANCELED = 4;
  private static final int DONE = 5;

  private final Requester requester;
  private final MethodDescriptor<Req, Resp> method;
  private final CallOptions options;
  private final Req request;
  private final Parser<Resp> parser;
  private boolean answered; // event loop: a response was delivered

  private volatile int state;
  @SuppressWarnings("rawtypes")
  private static final AtomicIntegerFieldUpdater<UnaryCall> STATE =
      AtomicIntegerFieldUpdater.newUpdater(UnaryCall.class, "state");

  private volatile CoreSubscriber<? super Resp> actual; // null once the call ended or was canceled
  private volatile StreamHandle handle;
  private volatile boolean demandParked; // request(n > 0) inside onSubscribe
  private Message first; // the encoded request until the start
  /** A request(n <= 0) not yet signalled (§3.9): kept while onSubscribe runs or the start ends. */
  private volatile IllegalArgumentException badDemand;

  UnaryCall(Requester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    this.requester = requester;
    this.method = method;
    this.options = options;
    this.request = request;
    this.parser = method.responseParser();
  }

  @Override
  public void subscribe(CoreSubscriber<? super Resp> s) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBING)) {
      new UnaryCall<>(requester, method, options, request).subscribe(s);
      return;
    }
    Message m;
    try {
      m = ProtoMessages.first(requester.alloc(), options.metadata(method), request);
    } catch (Throwable e) {
      state = DONE;
      Operators.error(s, ReactorClientCalls.toStatus(e));
      return;
    }
    if (!requester.isOpen()) {
      state = DONE;
      m.release();
      Operators.error(s, ReactorClientCalls.toStatus(RequesterPublisher.notOpen(requester)));
      return;
    }
    first = m;
    actual = s;
    s.onSubscribe(this);
    if (STATE.compareAndSet(this, SUBSCRIBING, SUBSCRIBED)) {
      if (badDemand != null) {
        failBadDemand();
      } else if (demandParked) {
        start();
      }
    }
  }

  @Override
  public void request(long n) {
    if (n <= 0) {
      badDemand = new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
      if (state != SUBSCRIBING) { // inside onSubscribe: signalled once it has returned (§1.3)
        failBadDemand();
      }
      return;
    }
    int s = state;
    if (s == SUBSCRIBING) {
      demandParked = true;
      // onSubscribe may have returned meanwhile without seeing the parked demand.
      if (state == SUBSCRIBED) {
        start();
      }
    } else if (s == SUBSCRIBED) {
      start();
    }
    // Started or ended: further demand means nothing to a request-response.
  }

  /** Hands the request to the core, once (whoever moves SUBSCRIBED to STARTED). */
  private void start() {
    if (!STATE.compareAndSet(this, SUBSCRIBED, STARTED)) {
      return;
    }
    Message m = first;
    first = null;
    StreamHandle h = requester.requestResponse(m, this);
    handle = h;
    if (state == CANCELED) {
      h.cancel(); // canceled while starting: cancel() saw no handle yet
    } else if (badDemand != null) {
      failBadDemand(); // request(n <= 0) while starting saw no handle yet
    }
  }

  @Override
  public void cancel() {
    int s = STATE.getAndSet(this, CANCELED);
    if (s == SUBSCRIBED || s == SUBSCRIBING) {
      releaseFirst();
    } else if (s == STARTED) {
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
    } else if (s == DONE) {
      state = DONE;
      return;
    }
    actual = null;
  }

  /**
   * Ends the call with the §3.9 error of a request(n <= 0), once, as an {@link
   * IllegalArgumentException}: before the start at once (nothing else signals then); once started
   * on the stream's event loop, where every other signal comes from (§1.3), cancelling the stream.
   * A start that has not published its handle yet does this when it has.
   */
  private void failBadDemand() {
    IllegalArgumentException e = badDemand;
    if (e == null) {
      return;
    }
    if (STATE.compareAndSet(this, SUBSCRIBED, DONE)) {
      releaseFirst();
      failWith(e);
      return;
    }
    StreamHandle h = handle;
    if (h == null || state != STARTED) {
      return;
    }
    Runnable end =
        () -> {
          if (STATE.compareAndSet(this, STARTED, DONE)) {
            h.cancel();
            failWith(e);
          }
        };
    OnStreamLoop.run(h, end);
  }

  /** Fails the subscriber once with {@code e} as it is. */
  private void failWith(Throwable e) {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a != null) {
      a.onError(e);
    }
  }

  private void releaseFirst() {
    Message m = first;
    first = null;
    if (m != null) {
      m.release();
    }
  }

  /** Fails the subscriber once, with the failure as a StatusException. */
  private void fail(Throwable cause) {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a != null) {
      a.onError(ReactorClientCalls.toStatus(cause));
    }
  }

  // ---- StreamListener: on the event loop ----

  @Override
  public void onNext(Message message) {
    CoreSubscriber<? super Resp> a = actual;
    if (a == null || state != STARTED) {
      message.release();
      return;
    }
    Resp value;
    try {
      value = ProtoMessages.parse(parser, message);
    } catch (RuntimeException e) {
      parseFailed(e);
      return;
    }
    answered = true;
    a.onNext(value);
  }

  /** A response that is not a valid message: the stream is cancelled and the call fails. */
  private void parseFailed(RuntimeException e) {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      // The response of a request-response is its last frame: the cancel only tidies up a
      // peer that answered without completing, so a handle not yet published can be skipped.
      StreamHandle h = handle;
      if (h != null) {
        h.cancel();
      }
      fail(e);
    }
  }

  @Override
  public void onComplete() {
    if (STATE.compareAndSet(this, STARTED, DONE)) {
      if (!answered) {
        // COMPLETE without NEXT is legal RSocket but no unary answer (grpc-java: "No value
        // received for unary call").
        fail(noResponse(method));
        return;
      }
      CoreSubscriber<? super Resp> a = actual;
      actual = null;
      if (a != null) {
        a.onComplete();
      }
    }
  }

  /** The failure of a unary call that completed without a response. */
  static StatusException noResponse(MethodDescriptor<?, ?> method) {
    return StatusException.of(Status.Code.INTERNAL, method.fullName() + " completed without a response");
  }

  @Override
  public void onError(Throwable cause) {
    int s = state;
    if (s != CANCELED && s != DONE && STATE.compareAndSet(this, s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseFirst();
      }
      fail(cause);
    }
  }
}
