package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;

/**
 * The requester side of a request-response or request-stream as one state machine, shared by every
 * object that is at once the subscription a subscriber sees and the core's stream listener: {@link
 * StreamSubscription} and the RPC flavors' one-object calls. Those calls are also the publisher the
 * caller gets, a class of their flavor (reactor's {@code Mono}, {@code Flux}), so the machine
 * cannot be a base class: it is this interface, whose default methods hold every transition once,
 * over the few fields each implementation keeps itself (no object per call besides the call).
 * Implementations supply those fields ({@link #state}, {@link #casState}, ...) and what differs:
 * how the request is sent ({@link #send}), whether later demand goes to the peer ({@link
 * #streaming}), and how the subscriber hears the end ({@link #signalError}, {@link
 * #signalComplete}, {@link #dropSubscriber}). Each response ({@code onNext}) is theirs too.
 *
 * <p><b>States.</b> {@link #FRESH}, then {@link #SUBSCRIBING} while the subscriber's {@code
 * onSubscribe} runs, {@link #SUBSCRIBED}, {@link #STARTED} once the first {@code request(n)} sent
 * the request, and {@link #DONE} once the subscriber heard the end; {@link #CANCELED} from any
 * state but {@code DONE}. Demand signalled inside {@code onSubscribe} is parked, and the stream
 * starts only once {@code onSubscribe} has returned (Reactive Streams §1.3). The core's handle is
 * published after the start call returns, possibly after the loop delivered signals; demand in
 * that gap is parked and handed over by whichever side sees the handle last. A {@code request(n <=
 * 0)} ends the call with an {@link IllegalArgumentException} (§3.9): before the start at once, after
 * it on the stream's event loop ({@link OnStreamLoop}), cancelling the stream.
 *
 * <p><b>Threads.</b> {@link #demand} and {@link #cancelCall} may be called from any thread; the
 * {@link StreamListener} methods are called on the connection's event loop.
 *
 * <p><b>Buffers.</b> The request message ({@link #takeRequest}) is handed to the core at the start,
 * or released here when the call ends first.
 *
 * <p>For flavor implementations only: the field methods are public because the implementations
 * live in other packages; nothing but the implementation itself and these defaults may call them.
 */
public interface CallMachine extends StreamListener {
  int FRESH = 0;
  int SUBSCRIBING = 1;
  int SUBSCRIBED = 2;
  int STARTED = 3;
  int CANCELED = 4;
  int DONE = 5;

  // ---- the fields, kept by the implementation ----

  /** The state (a volatile read). */
  int state();

  /** Compares and sets the state atomically. */
  boolean casState(int expect, int update);

  /** The core's handle once the start published it, else null (volatile). */
  StreamHandle streamHandle();

  void streamHandle(StreamHandle h);

  /** A request(n <= 0) not yet signalled: kept while onSubscribe runs or the start ends (volatile). */
  IllegalArgumentException badDemand();

  void badDemand(IllegalArgumentException e);

  /** Adds demand not yet handed to the core (saturating; a request-response only marks it). */
  void parkDemand(long n);

  /** Takes the parked demand atomically, leaving none; 0 if none. */
  long takeParkedDemand();

  /** Takes the request message, leaving null (only the thread that won the state's change calls it). */
  Message takeRequest();

  // ---- what differs ----

  /** Sends {@code request} with initial demand {@code n}, with this as the stream's listener. */
  StreamHandle send(Message request, long n);

  /** True if demand after the start goes to the peer (request-stream), false for request-response. */
  boolean streaming();

  /** Forgets the subscriber after a cancel (§3.13). */
  void dropSubscriber();

  /**
   * Signals {@code e} to the subscriber once and forgets it: the stream's failure, a parse failure
   * given to {@link #failStarted}, or the {@link #badDemand} itself (§3.9).
   */
  void signalError(Throwable e);

  /** Signals completion to the subscriber once and forgets it. */
  void signalComplete();

  /** Adds two demands, saturating at {@link Long#MAX_VALUE}. */
  static long addDemand(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  // ---- the machine ----

  /**
   * Called once the subscriber's {@code onSubscribe} has returned (the implementation moved FRESH to
   * SUBSCRIBING before calling it): signals a bad request(n) made inside it, or starts with the
   * demand parked meanwhile.
   */
  default void subscribed() {
    if (casState(SUBSCRIBING, SUBSCRIBED)) {
      if (badDemand() != null) {
        failBadDemand();
        return;
      }
      long parked = takeParkedDemand();
      if (parked > 0) {
        demand(parked);
      }
    }
  }

  /** A subscriber's {@code request(n)}. */
  default void demand(long n) {
    if (n <= 0) {
      if (badDemand() == null) { // the first one is the error signalled (and compared against)
        badDemand(Downstream.badRequest(n));
      }
      if (state() != SUBSCRIBING) { // inside onSubscribe: signalled once it has returned (§1.3)
        failBadDemand();
      }
      return;
    }
    int s = state();
    if (s == SUBSCRIBING) {
      parkDemand(n);
      if (state() != SUBSCRIBING) { // onSubscribe returned meanwhile: hand the demand on
        long parked = takeParkedDemand();
        if (parked > 0) {
          demand(parked);
        }
      }
      return;
    }
    if (s == SUBSCRIBED && casState(SUBSCRIBED, STARTED)) {
      StreamHandle h = send(takeRequest(), n);
      streamHandle(h);
      long parked = takeParkedDemand();
      if (parked > 0 && streaming()) {
        h.request(parked);
      }
      if (state() == CANCELED) {
        h.cancel(); // canceled while starting: cancelCall() saw no handle yet
      } else if (badDemand() != null) {
        failBadDemand(); // request(n <= 0) while starting saw no handle yet
      }
      return;
    }
    if (!streaming()) {
      return; // request-response: further demand means nothing to the peer
    }
    StreamHandle h = streamHandle();
    if (h != null) {
      h.request(n);
      return;
    }
    if (state() != STARTED) {
      return; // ended: demand means nothing now
    }
    parkDemand(n);
    h = streamHandle();
    if (h != null) {
      long parked = takeParkedDemand();
      if (parked > 0) {
        h.request(parked);
      }
    }
  }

  /** A subscriber's {@code cancel()}: nothing is sent before the start, a CANCEL after it. */
  default void cancelCall() {
    int s;
    do {
      s = state();
      if (s == CANCELED || s == DONE) {
        return;
      }
    } while (!casState(s, CANCELED));
    if (s == SUBSCRIBED || s == SUBSCRIBING) {
      releaseRequest();
    } else if (s == STARTED) {
      StreamHandle h = streamHandle();
      if (h != null) {
        h.cancel();
      }
    }
    dropSubscriber();
  }

  /**
   * Ends the call with the §3.9 error of a request(n <= 0), once: before the start at once (nothing
   * else signals then); once started on the stream's event loop, where every other signal comes
   * from (§1.3), cancelling the stream; for a request-response too, as the core ignores request(n)
   * once it has started. A start that has not published its handle yet does this when it has.
   */
  default void failBadDemand() {
    IllegalArgumentException e = badDemand();
    if (e == null) {
      return;
    }
    if (casState(SUBSCRIBED, DONE)) {
      releaseRequest();
      signalError(e);
      return;
    }
    StreamHandle h = streamHandle();
    if (h == null || state() != STARTED) {
      return;
    }
    OnStreamLoop.run(
        h,
        () -> {
          if (casState(STARTED, DONE)) {
            h.cancel();
            signalError(e);
          }
        });
  }

  /**
   * Ends a started call on the event loop because of {@code e} (a response that cannot be
   * parsed): cancels the stream and signals {@code e}. The state becomes CANCELED, not DONE, so
   * that a starting thread that has not published the handle yet cancels the stream once it has.
   */
  default void failStarted(Throwable e) {
    if (casState(STARTED, CANCELED)) {
      StreamHandle h = streamHandle();
      if (h != null) {
        h.cancel();
      }
      signalError(e);
    }
  }

  /** Releases the request message if it is still here. */
  default void releaseRequest() {
    Message m = takeRequest();
    if (m != null) {
      m.release();
    }
  }

  @Override
  default void onComplete() {
    if (casState(STARTED, DONE)) {
      signalComplete();
    }
  }

  @Override
  default void onError(Throwable cause) {
    int s = state();
    if (s != CANCELED && s != DONE && casState(s, DONE)) {
      if (s == SUBSCRIBED) {
        releaseRequest();
      }
      signalError(cause);
    }
  }
}
