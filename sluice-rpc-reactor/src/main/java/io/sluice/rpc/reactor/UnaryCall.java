package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.CallMachine;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

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
 * still arrives is released unread. These transitions are flavor-support's {@link CallMachine},
 * shared with {@link StreamCall} and the flavors' {@code StreamSubscription}. A response that cannot be parsed cancels the stream and fails
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
    implements Subscription, CallMachine {
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
    Message m = PlainCalls.first(requester, method, options, request, s);
    if (m == null) {
      state = DONE;
      return;
    }
    first = m;
    actual = s;
    s.onSubscribe(this);
    subscribed();
  }

  @Override
  public void request(long n) {
    demand(n);
  }

  @Override
  public void cancel() {
    cancelCall();
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
      failStarted(e);
      return;
    }
    answered = true;
    a.onNext(value);
  }

  /** The failure of a unary call that completed without a response. */
  static StatusException noResponse(MethodDescriptor<?, ?> method) {
    return StatusException.of(Status.Code.INTERNAL, method.fullName() + " completed without a response");
  }

  // ---- CallMachine: the fields and what differs ----

  @Override
  public StreamHandle send(Message m, long n) {
    return requester.requestResponse(m, this);
  }

  @Override
  public boolean streaming() {
    return false;
  }

  @Override
  public void parkDemand(long n) {
    demandParked = true;
  }

  @Override
  public long takeParkedDemand() {
    // Not atomic: a second taker only tries a start the first one already made.
    if (demandParked) {
      demandParked = false;
      return 1;
    }
    return 0;
  }

  @Override
  public void signalComplete() {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a == null) {
      return;
    }
    if (answered) {
      a.onComplete();
    } else {
      // COMPLETE without NEXT is legal RSocket but no unary answer (grpc-java: "No value received
      // for unary call").
      a.onError(noResponse(method));
    }
  }

  @Override
  public void signalError(Throwable e) {
    CoreSubscriber<? super Resp> a = actual;
    actual = null;
    if (a != null) {
      a.onError(e == badDemand ? e : ReactorClientCalls.toStatus(e));
    }
  }

  @Override
  public void dropSubscriber() {
    actual = null;
  }

  @Override
  public int state() {
    return state;
  }

  @Override
  public boolean casState(int expect, int update) {
    return STATE.compareAndSet(this, expect, update);
  }

  @Override
  public StreamHandle streamHandle() {
    return handle;
  }

  @Override
  public void streamHandle(StreamHandle h) {
    handle = h;
  }

  @Override
  public IllegalArgumentException badDemand() {
    return badDemand;
  }

  @Override
  public void badDemand(IllegalArgumentException e) {
    badDemand = e;
  }

  @Override
  public Message takeRequest() {
    Message m = first;
    first = null;
    return m;
  }
}
