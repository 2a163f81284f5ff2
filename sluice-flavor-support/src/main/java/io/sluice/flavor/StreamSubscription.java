package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.reactivestreams.Subscriber;

/**
 * Request-response or request-stream: one object that is the subscription its subscriber sees and
 * the core's stream listener, signals going straight from the event loop to the subscriber. {@link
 * RequesterPublisher#requestStream} wraps it as a publisher of either kind; a flavor whose own
 * publisher type is a class (project-reactor's {@code Flux}) holds it and calls {@link
 * #subscribe(Subscriber)}.
 *
 * <p>The stream starts on the first {@code request(n)}; demand, cancel and the end follow {@link
 * CallMachine}, which this class shares with the RPC flavors' one-object calls. On a connection that
 * is no longer open the subscriber fails at once (§1.4, §1.9).
 *
 * <p><b>Threads.</b> {@code request} and {@code cancel} may be called from any thread. The {@link
 * StreamListener} methods are called by the core on the connection's event loop and signal the
 * subscriber there; a bad {@code request(n)} before the start is signalled on the requesting
 * thread (once {@code onSubscribe} has returned), after it on the event loop, where it also cancels
 * the stream (§3.9: an {@link IllegalArgumentException}).
 *
 * <p><b>Buffers.</b> The request message is owned from construction: handed to the core when the
 * stream starts, or released here if the subscription ends first. Received messages belong to the
 * subscriber, which must release them; those arriving after {@code cancel} are released here.
 */
public final class StreamSubscription extends Downstream implements CallMachine {
  private volatile int state;
  private static final AtomicIntegerFieldUpdater<StreamSubscription> STATE =
      AtomicIntegerFieldUpdater.newUpdater(StreamSubscription.class, "state");

  private volatile long pending;
  private static final AtomicLongFieldUpdater<StreamSubscription> PENDING =
      AtomicLongFieldUpdater.newUpdater(StreamSubscription.class, "pending");

  private volatile StreamHandle handle;
  private volatile IllegalArgumentException badDemand;
  private Message request;
  private final Requester requester;
  private final boolean stream;

  /**
   * @param request the request message, owned from now on (released once sent, or when the
   *     subscription ends before sending)
   * @param stream true for request-stream, false for request-response
   */
  public StreamSubscription(Requester requester, Message request, boolean stream) {
    this.requester = requester;
    this.request = request;
    this.stream = stream;
  }

  /** Subscribes {@code s}; a second subscriber is refused (single-use). */
  public void subscribe(Subscriber<? super Message> s) {
    subscribe(s, null);
  }

  void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow) {
    if (!STATE.compareAndSet(this, FRESH, SUBSCRIBING)) {
      refuse(rs, flow, secondSubscriber());
      return;
    }
    if (!requester.isOpen()) {
      state = DONE;
      releaseRequest();
      refuse(rs, flow, RequesterPublisher.notOpen(requester));
      return;
    }
    setSubscriber(rs, flow);
    signalOnSubscribe();
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

  @Override
  public void onNext(Message message) {
    int s = state;
    if (s == CANCELED || s == DONE) { // DONE: ended by a bad request(n) while in flight
      message.release();
      return;
    }
    emitNext(message);
  }

  // ---- CallMachine: the fields and what differs ----

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
  public void parkDemand(long n) {
    PENDING.getAndAccumulate(this, n, CallMachine::addDemand);
  }

  @Override
  public long takeParkedDemand() {
    return PENDING.getAndSet(this, 0);
  }

  @Override
  public Message takeRequest() {
    Message m = request;
    request = null;
    return m;
  }

  @Override
  public StreamHandle send(Message m, long n) {
    return stream ? requester.requestStream(m, n, this) : requester.requestResponse(m, this);
  }

  @Override
  public boolean streaming() {
    return stream;
  }

  @Override
  public void dropSubscriber() {
    forgetSubscriber();
  }

  @Override
  public void signalError(Throwable e) {
    emitError(e);
  }

  @Override
  public void signalComplete() {
    emitComplete();
  }
}
