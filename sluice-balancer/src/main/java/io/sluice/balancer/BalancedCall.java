package io.sluice.balancer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request sent through a {@link Balancer}, over as many attempts as it may safely take. It is
 * the {@link StreamHandle} the caller holds, valid across attempts: demand, cancel and outbound
 * signals go to the current attempt's stream, or wait for it.
 *
 * <p><b>Retries.</b> Only before anything reached the caller (no message, completion or demand),
 * never for a fire-and-forget, and only when safe: REJECTED (the server's engine refused it before
 * any handler saw it), not sent at all (the connection refused it before any of it left and says
 * so: {@link io.sluice.exceptions.SluiceException#requestNotSent()}, whether it refused while the
 * request was handed over or later, from its queue), or a connection error on a request the
 * application's {@code retryable} hook marks idempotent. At most {@code maxAttempts} attempts, each
 * on a connection not tried before.
 *
 * <p><b>Buffers.</b> The call owns the request until it is committed (the first signal to the
 * caller), it ends, or it is canceled; each attempt gets a retained duplicate (independent
 * indices: a sent buffer is consumed by the transport). The request is released exactly once.
 *
 * <p><b>Threads.</b> The handle's methods may be called from any thread; the state shared with the
 * attempts' listeners (each on its connection's loop) is guarded by this object's monitor, which is
 * never held while calling out. Each caller signal reads and updates that state in one critical
 * section: until an attempt's stream exists, demand, completion and the caller's end are kept
 * here, and the attempt's hand-over passes them on once it has installed the stream.
 */
final class BalancedCall implements StreamHandle {
  static final int FNF = 0;
  static final int RESPONSE = 1;
  static final int STREAM = 2;
  static final int CHANNEL = 3;
  private static final String[] KINDS = {
    "fire-and-forget", "request-response", "request-stream", "request-channel"
  };

  final Balancer balancer;
  final int kind;
  final int rank;
  final boolean idempotent;
  final long startNanos = System.nanoTime();
  private final StreamListener downstream;
  private final long initialRequest;
  private final boolean firstCompletes;
  private final int maxAttempts;

  // Guarded by this.
  private Message request; // ours until committed, done or canceled; then null (released once)
  private Attempt current;
  private long extraDemand;
  private boolean outboundComplete;
  private boolean canceled;
  /**
   * The caller ended the call (cancel, error, or a non-positive request) while an attempt may be
   * handing its request over: the hand-over then ends that attempt's stream (see {@link #start}).
   */
  private boolean endedByCaller;
  /** The caller's error for the stream ({@link #error}), or null for a cancel. */
  private Throwable callerError;
  private boolean committed;
  private boolean done;
  private int attempts;
  private final Requester[] tried;
  private final Server[] triedServers;
  private Throwable lastError;

  /** The wait for a server while parked; control executor only. */
  ScheduledFuture<?> waitTimer;

  BalancedCall(
      Balancer balancer,
      int kind,
      Message request,
      long initialRequest,
      boolean firstCompletes,
      int rank,
      boolean idempotent,
      StreamListener downstream) {
    this.balancer = balancer;
    this.kind = kind;
    this.request = request;
    this.initialRequest = initialRequest;
    this.firstCompletes = firstCompletes;
    this.rank = rank;
    this.idempotent = idempotent;
    this.downstream = downstream;
    this.maxAttempts = kind == FNF ? 1 : balancer.maxAttempts;
    this.tried = new Requester[maxAttempts];
    this.triedServers = new Server[maxAttempts];
    this.observed = balancer.attemptObserver == AttemptObserver.NONE ? null : observeCall(balancer.attemptObserver);
  }

  /** What follows this call's attempts, or null. */
  private final AttemptObserver.Call observed;

  private static AttemptObserver.Call observeCall(AttemptObserver o) {
    try {
      return o.onCall();
    } catch (RuntimeException e) {
      return null;
    }
  }

  String kindName() {
    return KINDS[kind];
  }

  /** True if {@code conn} was tried by this call already (a retry goes elsewhere). */
  synchronized boolean hasTried(Requester conn) {
    for (int i = 0; i < attempts; i++) {
      if (tried[i] == conn) {
        return true;
      }
    }
    return false;
  }

  synchronized boolean isDone() {
    return done;
  }

  synchronized Throwable lastError() {
    return lastError;
  }

  /** The servers tried so far, for error messages. */
  synchronized String triedServers() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < attempts; i++) {
      b.append(i == 0 ? "" : ", ").append(triedServers[i]);
    }
    return b.toString();
  }

  /** Sends the next attempt to {@code server}'s current connection. Any thread. */
  void send(Server server) {
    Requester conn = server.live;
    if (conn == null) { // closed since it was picked: pick again (nothing was sent)
      balancer.dispatch(this);
      return;
    }
    Attempt a = new Attempt(server, conn);
    int previous;
    boolean exhausted;
    synchronized (this) {
      if (done) {
        return;
      }
      previous = attempts;
      exhausted = attempts >= maxAttempts; // not reachable by the rules below; kept as a bound
      if (exhausted) {
        done = true;
        releaseRequest();
      } else {
        tried[attempts] = conn;
        triedServers[attempts] = server;
        if (attempts > 0) {
          balancer.servers.retries.increment();
        }
        balancer.servers.picks.increment();
        attempts++;
        current = a;
      }
    }
    if (exhausted) {
      safeError(new IllegalStateException(kindName() + ": no attempts left"));
      return;
    }
    if (observed != null) {
      a.observe(observed, previous);
    }
    server.requests.increment();
    if (kind != FNF) {
      server.inflight.incrementAndGet();
      if (kind == RESPONSE) {
        server.responses.incrementAndGet();
      }
    }
    Executor loop = conn.executor();
    if (loop instanceof EventExecutor && ((EventExecutor) loop).inEventLoop()) {
      start(a);
      return;
    }
    try {
      loop.execute(() -> start(a));
    } catch (RejectedExecutionException e) { // nothing left to send it: not sent
      a.onError(ConnectionErrorException.notSent("the connection's event loop has shut down"));
    }
  }

  /** Hands the attempt to its connection; on the connection's loop. */
  private void start(Attempt a) {
    Message m;
    long n;
    boolean complete;
    synchronized (this) {
      if (current != a || done) {
        a.end();
        return;
      }
      if (maxAttempts > 1) {
        m = duplicate(request);
      } else {
        m = request;
        request = null;
      }
      n = saturatedAdd(initialRequest, extraDemand);
      a.demandIncluded = extraDemand;
      complete = firstCompletes || outboundComplete;
      a.completeIncluded = complete;
    }
    StreamHandle h = null;
    if (!a.conn.isOpen()) { // closing or closed since it was picked: not sent, try another
      m.release();
      a.onError(
          ConnectionCloseException.notSent("the connection to " + a.server + " is closing"));
      return;
    }
    try {
      switch (kind) {
        case FNF:
          a.conn.fireAndForget(m, a);
          break;
        case RESPONSE:
          h = a.conn.requestResponse(m, a);
          break;
        case STREAM:
          h = a.conn.requestStream(m, n, a);
          break;
        default:
          h = a.conn.requestChannel(m, complete, n, a);
      }
    } catch (RuntimeException e) { // a requester that breaks its contract: nothing was sent
      a.fail(e, true);
    }
    if (h == null) {
      return;
    }
    boolean end = false;
    Throwable error = null;
    long delta = 0;
    boolean completeNow = false;
    synchronized (this) {
      if (current != a) {
        return; // failed already: that stream is over
      }
      a.handle = h;
      if (endedByCaller) { // canceled, errored or asked for n <= 0 while the request went out
        end = true;
        error = callerError;
      } else {
        delta = extraDemand - a.demandIncluded;
        completeNow = outboundComplete && !a.completeIncluded;
      }
    }
    if (end) {
      if (error != null) {
        h.error(error);
      } else {
        h.cancel();
      }
      return;
    }
    if (delta > 0) {
      h.request(delta);
    }
    if (completeNow) {
      h.complete();
    }
  }

  /** Fails the call without an attempt in flight (no server, balancer closed, ...). */
  void fail(Throwable cause) {
    synchronized (this) {
      if (done) {
        return;
      }
      done = true;
      releaseRequest();
    }
    safeError(cause);
  }

  // ---------------------------------------------------------------------------------------------
  // StreamHandle (the caller's)
  // ---------------------------------------------------------------------------------------------

  @Override
  public void request(long n) {
    // One critical section: the demand is either counted in before an attempt's hand-over reads
    // it, or forwarded to the handle that hand-over installed (never lost between the two).
    StreamHandle h;
    Attempt ended = null;
    boolean ends = false;
    synchronized (this) {
      if (done) {
        return;
      }
      h = current != null ? current.handle : null;
      if (n <= 0 && h == null) { // as the stream itself would: Reactive Streams rule 3.9
        ends = true;
        done = true;
        endedByCaller = true; // an attempt being handed over is canceled by its hand-over
        releaseRequest();
        ended = current;
      } else if (!committed) {
        if (n > 0) {
          extraDemand = saturatedAdd(extraDemand, n);
        }
        if (h != null) {
          current.demandIncluded = extraDemand;
        }
      }
    }
    if (ends) {
      if (ended != null) {
        ended.end();
      } else {
        balancer.unpark(this);
      }
      safeError(new IllegalArgumentException("request(n) needs n > 0, got " + n));
      return;
    }
    if (h != null) {
      h.request(n);
    }
  }

  @Override
  public void cancel() {
    StreamHandle h = endByCaller(true, null);
    if (h != null) {
      h.cancel();
    }
  }

  /**
   * The caller ends the call (cancel or error): no attempt follows, the request is released, and
   * the current attempt ends (or the wait for a server does). Returns the current attempt's handle
   * for the caller's signal, or null (none yet, or the call had already ended).
   */
  private StreamHandle endByCaller(boolean cancel, Throwable cause) {
    Attempt a;
    StreamHandle h;
    synchronized (this) {
      if (done) {
        return null;
      }
      if (cancel) {
        canceled = true;
      }
      endedByCaller = true;
      callerError = cause;
      done = true;
      releaseRequest();
      a = current;
      h = a != null ? a.handle : null;
    }
    if (a != null) {
      a.end();
    } else {
      balancer.unpark(this);
    }
    return h;
  }

  @Override
  public void next(Message message) {
    StreamHandle h;
    synchronized (this) {
      h = !done && current != null ? current.handle : null;
    }
    if (h == null) {
      message.release();
      return;
    }
    h.next(message);
  }

  @Override
  public void complete() {
    StreamHandle h;
    synchronized (this) {
      if (done) {
        return;
      }
      outboundComplete = true;
      h = current != null ? current.handle : null;
      if (h != null) {
        current.completeIncluded = true;
      }
    }
    if (h != null) {
      h.complete();
    }
  }

  @Override
  public void error(Throwable cause) {
    StreamHandle h = endByCaller(false, cause);
    if (h != null) {
      h.error(cause);
    }
  }

  @Override
  public Executor executor() {
    Attempt a;
    synchronized (this) {
      a = current;
    }
    return a != null ? a.conn.executor() : balancer.executor();
  }

  @Override
  public ByteBufAllocator alloc() {
    return balancer.alloc();
  }

  // ---------------------------------------------------------------------------------------------

  private void releaseRequest() { // holding this
    if (request != null) {
      request.release();
      request = null;
    }
  }

  /** The first signal to the caller: no retry from now on. Holding this. */
  private void commit() {
    if (!committed) {
      committed = true;
      releaseRequest();
    }
  }

  /**
   * Whether a retry is safe: REJECTED (the server's engine refused it before any handler saw it;
   * a handler's own RejectedException reaches a Sluice client as APPLICATION_ERROR), a request the
   * connection refused before sending it, or a connection error on an idempotent request.
   */
  private boolean retryable(Throwable e, boolean neverSent) {
    if (e instanceof RejectedException) {
      return true;
    }
    boolean connectionError =
        e instanceof ConnectionErrorException || e instanceof ConnectionCloseException;
    return connectionError && (neverSent || idempotent);
  }

  private Throwable describe(Throwable e, Server server, boolean neverSent) {
    if (e instanceof RejectedException) {
      return new RejectedException(
          kindName() + " rejected by every server tried (" + triedServers() + "): " + e.getMessage());
    }
    if (e instanceof ConnectionErrorException || e instanceof ConnectionCloseException) {
      String why =
          neverSent || idempotent
              ? "no attempts left after trying " + triedServers()
              : "not retried: it may have reached the server and is not marked idempotent"
                  + " (Balancer.Builder.retryable)";
      return new ConnectionErrorException(
          kindName() + " to " + server + " failed: " + e.getMessage() + "; " + why, e);
    }
    return e;
  }

  private void safeError(Throwable cause) {
    try {
      downstream.onError(cause);
    } catch (RuntimeException e) {
      Balancer.logger.warn("a stream listener threw from onError", e);
    }
  }

  static Message duplicate(Message m) {
    return Message.of(
        m.hasMetadata() ? m.metadata().retainedDuplicate() : null, m.data().retainedDuplicate());
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Attempt, AttemptObserver.Attempt>
      OBSERVER = java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(
          Attempt.class, AttemptObserver.Attempt.class, "observer");

  /** One attempt: the listener of its stream on one connection. */
  private final class Attempt implements StreamListener {
    final Server server;
    final Requester conn;
    final long sentNanos = System.nanoTime();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile AttemptObserver.Attempt observer; // null: nothing observes
    StreamHandle handle; // guarded by the call
    long demandIncluded; // guarded by the call
    boolean completeIncluded; // guarded by the call
    private boolean answered; // the connection's loop

    Attempt(Server server, Requester conn) {
      this.server = server;
      this.conn = conn;
    }

    void observe(AttemptObserver.Call call, int previous) {
      try {
        observer = call.onAttempt(previous, server.address);
      } catch (RuntimeException ignored) {
        // An observer must not break calls.
      }
    }

    /** Tells the observer, once, how the attempt ended. */
    private void observedEnd(Throwable error, boolean retried) {
      AttemptObserver.Attempt o = observer == null ? null : OBSERVER.getAndSet(this, null);
      if (o != null) {
        try {
          o.onEnd(error, retried);
        } catch (RuntimeException ignored) {
          // An observer must not break calls.
        }
      }
    }

    /** The attempt is over: no longer in flight on its server. */
    void end() {
      observedEnd(null, false);
      if (kind != FNF && ended.compareAndSet(false, true)) {
        server.inflight.decrementAndGet();
        if (kind == RESPONSE) {
          server.responses.decrementAndGet();
        }
      }
    }

    /**
     * The server answered: it works. A request-response's answer time is a latency sample; a
     * stream's or channel's first message is not (a subscription may wait minutes for its first
     * event, which says nothing of the server's speed).
     */
    private void answered() {
      if (!answered) {
        answered = true;
        if (kind == RESPONSE) {
          long now = System.nanoTime();
          server.observe(now - sentNanos, now);
        }
        server.answeredOn = conn;
        int failures = server.onSuccess();
        if (failures > 0) {
          balancer.servers.onRecovered(server, failures);
        }
      }
    }

    /** Commits the call to this attempt; false if the attempt is stale. */
    private boolean claim(boolean terminal) {
      synchronized (BalancedCall.this) {
        if (current != this || done) {
          return false;
        }
        commit();
        if (terminal) {
          done = true;
        }
        return true;
      }
    }

    @Override
    public void onNext(Message message) {
      if (!claim(false)) {
        message.release();
        return;
      }
      answered();
      downstream.onNext(message);
    }

    @Override
    public void onComplete() {
      boolean terminal = kind != CHANNEL;
      if (!claim(terminal)) {
        return;
      }
      if (kind != FNF) {
        answered();
      }
      end();
      downstream.onComplete();
    }

    @Override
    public void onRequest(long n) {
      if (claim(false)) {
        downstream.onRequest(n);
      }
    }

    @Override
    public void onCancel() {
      if (claim(false)) {
        end();
        downstream.onCancel();
      }
    }

    @Override
    public void onError(Throwable e) {
      fail(e, false);
    }

    /**
     * The attempt failed; {@code thrown}: the requester threw instead of taking the request, so
     * nothing was sent. Otherwise only the connection's word counts ({@link
     * io.sluice.exceptions.SluiceException#requestNotSent()}), however the refusal arrived.
     */
    void fail(Throwable e, boolean thrown) {
      boolean neverSent =
          thrown
              || (e instanceof io.sluice.exceptions.SluiceException
                  && ((io.sluice.exceptions.SluiceException) e).requestNotSent());
      boolean retry;
      synchronized (BalancedCall.this) {
        if (current != this || done) {
          return;
        }
        lastError = e;
        retry =
            !committed
                && !canceled
                && attempts < maxAttempts
                && request != null
                && retryable(e, neverSent);
        if (retry) {
          current = null;
        } else {
          done = true;
          releaseRequest();
        }
      }
      observedEnd(e, retry);
      end();
      boolean connectionError =
          e instanceof ConnectionErrorException || e instanceof ConnectionCloseException;
      if (connectionError && !neverSent) {
        balancer.servers.onRequestFailure(server, conn);
      } else if (!connectionError && !(e instanceof RejectedException) && kind != FNF) {
        answered(); // an application error is an answer: the server works
      }
      if (retry) {
        balancer.dispatch(BalancedCall.this);
      } else {
        safeError(describe(e, server, neverSent));
      }
    }
  }
}
