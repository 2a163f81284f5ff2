package io.sluice.balancer;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.Requester;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The control half of a {@link Balancer}: which servers it uses (the address set, narrowed by the
 * aperture), their connections (connect, replace a closed or closing one, reconnect with backoff,
 * eject after consecutive failures and probe back), and the calls waiting for a first server.
 *
 * <p><b>Reconnects.</b> Every reconnect waits a jittered delay from the backoff, at least its first
 * step's (so that clients that lost a server together do not come back together); the delay grows
 * with consecutive failures. A connection that fails counts as a failure, and so does one that
 * closes cleanly within {@link #STABLE_NANOS} of its connect without ever answering: a server at
 * its connection cap, a proxy without a backend or a listener shutting down accepts and closes at
 * once, and without that rule every client would reconnect in a tight loop.
 *
 * <p><b>Threads.</b> Everything here runs on the balancer's control executor, except {@link
 * #ready()} (a snapshot any thread reads), {@link #onRequestFailure} and {@link #onRecovered} (any
 * thread, handed over). <b>Memory.</b> One {@link Server} per address in use, per server the
 * current connection and at most {@link #MAX_CLOSING} closing ones (a drain or an ejection lets
 * their live streams finish), the connections of servers that left the address set until they
 * have closed (each within its drain timeout), and at most {@code maxPending} waiting calls.
 */
final class ServerSet {
  /** Attempts sent, attempts after the first of their call, servers ejected: for metrics. */
  final java.util.concurrent.atomic.LongAdder picks = new java.util.concurrent.atomic.LongAdder();
  final java.util.concurrent.atomic.LongAdder retries = new java.util.concurrent.atomic.LongAdder();
  final java.util.concurrent.atomic.LongAdder ejections = new java.util.concurrent.atomic.LongAdder();

  private static final Server[] NONE = new Server[0];
  /** How often closing connections (a server that sent CONNECTION_CLOSE) are looked for. */
  private static final long TICK_MILLIS = 100;

  /**
   * A connection that closes within this time of its connect without having answered anything
   * counts as a failure, even when it closed cleanly.
   */
  static final long STABLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * Closing connections kept per server, besides its current one: a server that drains every new
   * connection while the old ones still have live streams gets its oldest one cut beyond this.
   */
  static final int MAX_CLOSING = 4;

  private final Balancer balancer;
  private final EventExecutor ctl;
  private final Function<SocketAddress, CompletableFuture<Requester>> connector;
  private final Backoff backoff;
  private final int failureThreshold;
  private final int aperture;
  private final int maxPending;
  private final long waitNanos;
  private final long tauNanos;
  private final long apertureKey = ThreadLocalRandom.current().nextLong();

  private final Map<SocketAddress, Server> servers = new LinkedHashMap<>();
  /** Servers that left the address set and still have connections closing (a drain). */
  private final List<Server> leaving = new ArrayList<>();
  private Set<SocketAddress> addresses = Set.of();
  private final ArrayDeque<BalancedCall> pending = new ArrayDeque<>();
  private volatile Server[] ready = NONE;
  /** Every server in use (the keys of {@link #servers}), for {@link #status()} on any thread. */
  private volatile Server[] inUse = NONE;
  private volatile int serverCount;
  private volatile int pendingCount;
  private volatile int connectionCount;
  private ScheduledFuture<?> tick;
  private boolean closed;

  ServerSet(Balancer balancer, Balancer.Builder b, EventExecutor ctl) {
    this.balancer = balancer;
    this.ctl = ctl;
    this.connector = b.connector;
    this.backoff = new Backoff(b.backoffInitial, b.backoffMax);
    this.failureThreshold = b.failureThreshold;
    this.aperture = b.aperture;
    this.maxPending = b.maxPending;
    this.waitNanos = b.waitForServer.toNanos();
    this.tauNanos = b.latencyDecay.toNanos();
  }

  /** Starts listening to the source and watching connections. */
  void start(AddressSource source) {
    onCtl(
        () ->
            tick =
                ctl.scheduleWithFixedDelay(
                    this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS));
    source.start(
        new AddressSource.Listener() {
          @Override
          public void onAddresses(Set<SocketAddress> set) {
            Set<SocketAddress> copy = Set.copyOf(set);
            onCtl(() -> setAddresses(copy));
          }

          @Override
          public void onError(Throwable cause) {
            Balancer.logger.warn("address source {} failed; keeping the last set", source, cause);
          }
        });
  }

  /** The servers with a connection requests may use. Any thread. */
  Server[] ready() {
    return ready;
  }

  int serverCount() {
    return serverCount;
  }

  int pendingCount() {
    return pendingCount;
  }

  int connectionCount() {
    return connectionCount;
  }

  /** Runs {@code r} on the control executor (inline once it has shut down). */
  void onCtl(Runnable r) {
    if (ctl.inEventLoop()) {
      r.run();
      return;
    }
    try {
      ctl.execute(r);
    } catch (RejectedExecutionException e) {
      r.run(); // shut down: the balancer is closed, and every path checks for that first
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Addresses and aperture
  // ---------------------------------------------------------------------------------------------

  private void setAddresses(Set<SocketAddress> set) {
    if (closed) {
      return;
    }
    addresses = set;
    reconcile();
  }

  /** Brings the servers in use in line with the addresses and the aperture. */
  private void reconcile() {
    if (closed) {
      return;
    }
    List<SocketAddress> wanted = new ArrayList<>(addresses);
    if (aperture > 0 && wanted.size() > aperture) {
      // Rendezvous order: stable for this client as addresses come and go, different per client.
      wanted.sort(Comparator.comparingLong(this::apertureScore));
      List<SocketAddress> window = new ArrayList<>();
      int healthy = 0;
      for (SocketAddress a : wanted) {
        if (healthy >= aperture) {
          break;
        }
        window.add(a);
        Server s = servers.get(a);
        if (s == null || s.failures.get() < failureThreshold) {
          healthy++;
        }
      }
      wanted = window;
    }
    Map<SocketAddress, Boolean> keep = new HashMap<>();
    for (SocketAddress a : wanted) {
      keep.put(a, Boolean.TRUE);
    }
    List<Server> gone = new ArrayList<>();
    for (Server s : servers.values()) {
      if (!keep.containsKey(s.address)) {
        gone.add(s);
      }
    }
    for (Server s : gone) {
      drain(s);
    }
    List<Server> added = new ArrayList<>();
    for (SocketAddress a : wanted) {
      if (!servers.containsKey(a)) {
        Server s = new Server(a, tauNanos);
        s.connecting = true;
        servers.put(a, s);
        added.add(s);
      }
    }
    publish(); // before the connector runs: servers() on another thread sees them connecting
    for (Server s : added) {
      connect(s);
    }
  }

  private long apertureScore(SocketAddress a) {
    long h = a.hashCode() * 0x9E3779B97F4A7C15L ^ apertureKey;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h;
  }

  /**
   * The server left the set: no new requests; its connections close gracefully, and are kept
   * (counted, and cut by {@link #close close(false)}) until they have.
   */
  private void drain(Server s) {
    servers.remove(s.address);
    s.removed = true;
    s.live = null;
    cancel(s.reconnect);
    s.reconnect = null;
    if (s.conn != null) {
      s.closing.add(s.conn);
      closeOnLoop(s.conn, true);
      s.conn = null;
    }
    if (!s.closing.isEmpty()) {
      leaving.add(s);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Connections
  // ---------------------------------------------------------------------------------------------

  private void connect(Server s) {
    s.connecting = true;
    CompletableFuture<Requester> f;
    try {
      f = connector.apply(s.address);
      if (f == null) {
        throw new NullPointerException("the connector returned null for " + s);
      }
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((r, e) -> onCtl(() -> onConnected(s, r, e)));
  }

  private void onConnected(Server s, Requester r, Throwable e) {
    s.connecting = false;
    if (closed || s.removed) {
      if (r != null) {
        closeOnLoop(r, true);
      }
      return;
    }
    if (e != null || r == null) {
      s.lastError = "connect failed: " + message(e);
      failed(s);
      scheduleReconnect(s);
      return;
    }
    s.conn = r;
    s.live = r;
    s.connectedNanos = System.nanoTime();
    s.lastError = null;
    r.onClose().whenComplete((v, cause) -> onCtl(() -> onConnectionClosed(s, r, cause)));
    publish();
    drainPending();
  }

  private void onConnectionClosed(Server s, Requester r, Throwable cause) {
    if (s.closing.remove(r)) { // retired or drained: it was closing already
      if (cause != null && !closed && !s.removed && s.conn == null) {
        // Failed while closing (or before the tick saw its close), with no newer connection to
        // judge the server by: once. Beside a newer connection, the end of a drained one (its
        // streams cut when the server's drain ended) says nothing of the server.
        count(s, r);
      }
      if (s.removed && s.closing.isEmpty()) {
        leaving.remove(s);
      }
      publish();
      return;
    }
    if (s.conn != r) {
      return;
    }
    boolean early = closedEarly(s, r);
    s.conn = null;
    s.live = null;
    if (cause != null) {
      s.lastError = "connection lost: " + message(cause);
    } else {
      s.lastError =
          early ? "the server closed the connection at once, before any answer" : "connection closed";
    }
    if (cause != null || early) {
      count(s, r);
    }
    publish();
    if (!closed && !s.removed) {
      scheduleReconnect(s);
    }
  }

  /** True if the current connection {@code r} closes within STABLE_NANOS and never answered. */
  private static boolean closedEarly(Server s, Requester r) {
    return s.answeredOn != r && System.nanoTime() - s.connectedNanos < STABLE_NANOS;
  }

  /** The end of {@code r} is a failure of {@code s}: counted once per connection. */
  private void count(Server s, Requester r) {
    if (s.lastCounted != r) { // not counted yet (e.g. through its requests)
      s.lastCounted = r;
      failed(s);
    }
  }

  /** Replaces connections that started closing (the server sent CONNECTION_CLOSE: a drain). */
  private void tick() {
    if (closed) {
      return;
    }
    for (Server s : servers.values()) {
      Requester r = s.conn;
      if (r != null && !r.isOpen()) {
        // Closed already with an error (its callback not run yet), or drained at once: failures.
        if (r.onClose().isCompletedExceptionally() || closedEarly(s, r)) {
          count(s, r);
        }
        retire(s);
        s.lastError = "the server closed the connection (drain)";
        scheduleReconnect(s);
      }
    }
  }

  /**
   * The current connection stops taking requests and closes gracefully, its live streams finish;
   * beyond {@link #MAX_CLOSING} closing connections of this server the oldest is cut.
   */
  private void retire(Server s) {
    Requester r = s.conn;
    s.conn = null;
    s.live = null;
    if (r != null) {
      if (s.closing.size() >= MAX_CLOSING) {
        closeOnLoop(s.closing.poll(), false);
      }
      s.closing.add(r);
      closeOnLoop(r, true);
    }
    publish();
  }

  /**
   * Connects again after a jittered delay: the backoff's for the consecutive failures, at least its
   * first step's (also after a clean close or a drain).
   */
  private void scheduleReconnect(Server s) {
    if (closed || s.removed || s.connecting || s.conn != null || s.reconnect != null) {
      return;
    }
    long delay = backoff.delayNanos(Math.max(1, s.failures.get()));
    s.reconnect =
        ctl.schedule(
            () -> {
              s.reconnect = null;
              if (!closed && !s.removed && s.conn == null && !s.connecting) {
                connect(s);
              }
            },
            delay,
            TimeUnit.NANOSECONDS);
  }

  /**
   * A server answered after {@code failures} consecutive failures. Any thread. One that had been
   * ejected widened the aperture: narrow it again.
   */
  void onRecovered(Server s, int failures) {
    if (aperture > 0 && failures >= failureThreshold) {
      onCtl(this::reconcile);
    }
  }

  /** One more consecutive failure of {@code s}; at the threshold it is ejected. Control only. */
  private void failed(Server s) {
    if (s.failures.incrementAndGet() == failureThreshold && aperture > 0) {
      reconcile(); // widen the aperture past the ejected server
    }
  }

  /**
   * A request on {@code s} failed with a connection error: one failure per connection, however
   * many of its requests fail with it, and none for a connection retired before (a drain) while a
   * newer one is in use. Any thread. At the threshold the server is ejected: its connection closes
   * and it is probed back by reconnecting with backoff.
   */
  void onRequestFailure(Server s, Requester conn) {
    if (s.lastCounted == conn) {
      return; // the connection's other requests failing with it count once, with it
    }
    Requester live = s.live;
    if (live != null && live != conn) {
      return; // a retired connection (drained, or ejected and counted then): the newer one judges
    }
    s.lastCounted = conn;
    int f = s.failures.incrementAndGet();
    if (f >= failureThreshold) {
      onCtl(
          () -> {
            if (closed || s.removed || s.conn == null || s.failures.get() < failureThreshold) {
              return;
            }
            s.lastError = f + " consecutive failures: ejected, probing with backoff";
            ejections.increment();
            retire(s);
            if (aperture > 0) {
              reconcile();
            }
            scheduleReconnect(s);
          });
    }
  }

  private void publish() {
    List<Server> r = new ArrayList<>(servers.size());
    int connections = 0;
    for (Server s : servers.values()) {
      if (s.live != null) {
        r.add(s);
      }
      connections += (s.conn != null ? 1 : 0) + s.closing.size();
    }
    for (Server s : leaving) {
      connections += s.closing.size();
    }
    ready = r.isEmpty() ? NONE : r.toArray(NONE);
    inUse = servers.isEmpty() ? NONE : servers.values().toArray(NONE);
    serverCount = servers.size();
    connectionCount = connections;
  }

  // ---------------------------------------------------------------------------------------------
  // Calls waiting for a server
  // ---------------------------------------------------------------------------------------------

  /** No connection is up: {@code call} waits for one, within the bound. */
  void park(BalancedCall call) {
    onCtl(
        () -> {
          if (call.isDone()) {
            return;
          }
          if (closed) {
            call.fail(new ConnectionCloseException("the balancer is closed"));
            return;
          }
          if (hasOpenConnection()) {
            balancer.dispatch(call); // one came up meanwhile
            return;
          }
          if (pending.size() >= maxPending) {
            call.fail(
                new io.sluice.exceptions.RejectedException(
                    "too many requests waiting for a server ("
                        + maxPending
                        + ", Balancer.Builder.maxPending); servers: "
                        + describe()));
            return;
          }
          pending.add(call);
          pendingCount = pending.size();
          if (call.waitTimer == null) {
            long left = call.startNanos + waitNanos - System.nanoTime();
            call.waitTimer = ctl.schedule(() -> waitedTooLong(call), left, TimeUnit.NANOSECONDS);
          }
        });
  }

  void unpark(BalancedCall call) {
    onCtl(
        () -> {
          if (pending.remove(call)) {
            pendingCount = pending.size();
          }
          cancel(call.waitTimer);
        });
  }

  private void waitedTooLong(BalancedCall call) {
    if (!pending.remove(call)) {
      return;
    }
    pendingCount = pending.size();
    Throwable last = call.lastError();
    call.fail(
        new ConnectionErrorException(
            call.kindName()
                + ": no server connected within "
                + TimeUnit.NANOSECONDS.toMillis(waitNanos)
                + " ms (Balancer.Builder.waitForServer); servers: "
                + describe()
                + (last != null ? "; last error: " + last.getMessage() : "")));
  }

  private void drainPending() {
    if (pending.isEmpty() || !hasOpenConnection()) {
      return;
    }
    List<BalancedCall> calls = new ArrayList<>(pending);
    pending.clear();
    pendingCount = 0;
    for (BalancedCall c : calls) {
      cancel(c.waitTimer);
      c.waitTimer = null;
      if (!c.isDone()) {
        balancer.dispatch(c);
      }
    }
  }

  private boolean hasOpenConnection() {
    for (Server s : ready) {
      Requester r = s.live;
      if (r != null && r.isOpen()) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------

  /** Each server and its state, for error messages: {@code host:port (state)}. Control only. */
  String describe() {
    if (servers.isEmpty()) {
      return addresses.isEmpty() ? "none (the address source has none)" : "none in use";
    }
    StringBuilder b = new StringBuilder();
    for (Server s : servers.values()) {
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(s).append(" (").append(state(s));
      if (s.lastError != null && s.live == null) {
        b.append(": ").append(s.lastError);
      }
      b.append(')');
    }
    return b.toString();
  }

  String state(Server s) {
    if (s.live != null) {
      return s.failures.get() >= failureThreshold ? "probing" : "connected";
    }
    if (s.failures.get() >= failureThreshold) {
      return "ejected";
    }
    return s.connecting ? "connecting" : "reconnecting";
  }

  /**
   * A snapshot of every server in use: on the control executor, up to date; on any other thread,
   * the servers as last published and each one's state now.
   */
  List<Balancer.ServerStatus> status() {
    Server[] all = inUse;
    List<Balancer.ServerStatus> r = new ArrayList<>(all.length);
    long now = System.nanoTime();
    for (Server s : all) {
      r.add(
          new Balancer.ServerStatus(
              s.address,
              state(s),
              s.requests.sum(),
              s.inflight.get(),
              s.latencyNanos(now) / 1000.0,
              s.availability(0),
              s.failures.get(),
              s.lastError));
    }
    return r;
  }

  /** Closes every connection (gracefully or at once) and fails the waiting calls. Control only. */
  CompletableFuture<Void> close(boolean graceful) {
    closed = true;
    cancel(tick);
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    List<Server> all = new ArrayList<>(servers.values());
    all.addAll(leaving);
    for (Server s : all) {
      s.removed = true;
      s.live = null;
      cancel(s.reconnect);
      List<Requester> conns = new ArrayList<>(s.closing);
      if (s.conn != null) {
        conns.add(s.conn);
      }
      for (Requester r : conns) {
        closing.add(r.onClose().exceptionally(e -> null));
        closeOnLoop(r, graceful);
      }
      s.conn = null;
      s.closing.clear();
    }
    servers.clear();
    leaving.clear();
    publish();
    List<BalancedCall> calls = new ArrayList<>(pending);
    pending.clear();
    pendingCount = 0;
    for (BalancedCall c : calls) {
      cancel(c.waitTimer);
      c.fail(new ConnectionCloseException("the balancer was closed before a server connected"));
    }
    return CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * Closes {@code r} as a task of its own event loop, not through its queue of commands from other
   * threads: a request the balancer hands over on that loop then either goes before the close
   * (and is answered during the drain) or sees the connection closing and is known as not sent.
   */
  static void closeOnLoop(Requester r, boolean graceful) {
    Runnable close = graceful ? r::close : r::dispose;
    java.util.concurrent.Executor loop = r.executor();
    if (loop instanceof EventExecutor && ((EventExecutor) loop).inEventLoop()) {
      close.run();
      return;
    }
    try {
      loop.execute(close);
    } catch (RejectedExecutionException e) {
      close.run();
    }
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }

  static String message(Throwable e) {
    if (e == null) {
      return "no connection";
    }
    while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
