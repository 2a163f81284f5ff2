package io.sluice.balancer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * A {@link Requester} over many servers: each request goes to one of them, chosen by power of two
 * choices (two servers at random, the cheaper wins) where a server's cost is its latency average
 * times its calls in flight plus one, divided by its lease availability ({@link
 * Requester#availability(int)}). A server without availability for the request's rank is never
 * chosen while another has some. Every API flavor and generated RPC client takes it like a single
 * connection: {@code new FuturesRequester(balancer)}.
 *
 * <pre>{@code
 * Balancer balancer = Balancer.builder()
 *     .addresses(AddressSource.fixed(a, b, c))
 *     .connector(address -> Connections.connect(...))
 *     .build();
 * }</pre>
 *
 * <p><b>Connections.</b> One per server in use (all addresses of the source, or an {@link
 * Builder#aperture aperture} of them); a connection that closes, or that the server starts
 * closing (a drain), is replaced after a jittered delay; a failed connect, a lost connection or
 * one closed at once before any answer counts as a failure, and the delay grows exponentially with
 * consecutive failures; {@link Builder#failureThreshold consecutive failures} eject a server
 * until a reconnect (the probe) and an answer bring it back. An address that leaves the source is drained: no new
 * requests, live streams finish, then its connection closes gracefully.
 *
 * <p><b>Retries</b> happen only when safe and only before the caller saw anything: a request
 * REJECTED (by a lease, or a draining server), one that was never sent, or a connection error on a
 * request that {@link Builder#retryable} marks idempotent; never a fire-and-forget, never a
 * stream that has delivered a message; at most {@link Builder#maxAttempts} attempts, each on
 * another connection. With no server connected yet, a request waits for one up to {@link
 * Builder#waitForServer}; with servers connected but none available, it fails at once with a
 * {@link RejectedException}.
 *
 * <p><b>Threads.</b> Thread-safe; requests may start on any thread; listeners are called on the
 * chosen connection's event loop. <b>Buffers.</b> As {@link Requester}: every method takes
 * ownership of its message; a request is kept (retained) until its first answer for a possible
 * retry and released exactly once.
 */
public final class Balancer implements Requester {
  static final InternalLogger logger = InternalLoggerFactory.getInstance(Balancer.class);

  final int maxAttempts;
  final AttemptObserver attemptObserver;
  final ServerSet servers;
  private final AddressSource source;
  private final ToIntFunction<Message> rankOf;
  private final Predicate<Message> retryable;
  private final ByteBufAllocator alloc;
  private final EventExecutor ctl;
  private final boolean ownsExecutor;
  private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
  private volatile boolean closed;

  private Balancer(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.attemptObserver = b.attemptObserver;
    this.source = b.source;
    this.rankOf = b.rankOf;
    this.retryable = b.retryable;
    this.alloc = b.alloc;
    if (b.executor != null) {
      this.ctl = b.executor.next();
      this.ownsExecutor = false;
    } else {
      this.ctl = new DefaultEventExecutor(new DefaultThreadFactory("sluice-balancer", true));
      this.ownsExecutor = true;
    }
    this.servers = new ServerSet(this, b, ctl);
  }

  /** A builder; {@link Builder#addresses} and {@link Builder#connector} are required. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------------------------------------
  // Requester
  // ---------------------------------------------------------------------------------------------

  @Override
  public void fireAndForget(Message request, StreamListener listener) {
    start(BalancedCall.FNF, request, 1, false, listener);
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    return start(BalancedCall.RESPONSE, request, 1, false, listener);
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    return start(BalancedCall.STREAM, request, initialRequest, false, listener);
  }

  @Override
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
    return start(BalancedCall.CHANNEL, first, initialRequest, complete, listener);
  }

  private BalancedCall start(
      int kind, Message request, long initialRequest, boolean complete, StreamListener listener) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(listener, "listener");
    int rank;
    boolean idempotent;
    try {
      rank = Math.max(0, rankOf.applyAsInt(request));
      idempotent = kind != BalancedCall.FNF && retryable.test(request);
    } catch (RuntimeException e) {
      BalancedCall c =
          new BalancedCall(this, kind, request, initialRequest, complete, 0, false, listener);
      c.fail(e);
      return c;
    }
    BalancedCall c =
        new BalancedCall(this, kind, request, initialRequest, complete, rank, idempotent, listener);
    if (initialRequest <= 0) {
      c.fail(new IllegalArgumentException("initial request must be positive: " + initialRequest));
    } else {
      dispatch(c);
    }
    return c;
  }

  /**
   * Sends the call's next attempt: to the cheaper of two random servers it has not tried; waits
   * for a server while none is connected; fails when the servers connected cannot take it.
   */
  void dispatch(BalancedCall call) {
    if (closed) {
      call.fail(new ConnectionCloseException("the balancer is closed"));
      return;
    }
    Server s = pick(call);
    if (s != null) {
      call.send(s);
      return;
    }
    boolean open = false;
    boolean untried = false;
    for (Server r : servers.ready()) {
      Requester conn = r.live;
      if (conn != null && conn.isOpen()) {
        open = true;
        untried |= !call.hasTried(conn);
      }
    }
    if (!open) {
      servers.park(call);
      return;
    }
    Throwable last = call.lastError();
    if (untried || last == null) {
      call.fail(
          new RejectedException(
              call.kindName()
                  + ": no server has lease availability"
                  + (call.rank > 0 ? " for rank " + call.rank : "")
                  + " now ("
                  + availabilities(call.rank)
                  + ")"
                  + (last != null ? "; last error: " + last.getMessage() : "")));
    } else {
      // Every open connection was tried: the attempt's error, told as the last one.
      call.fail(
          last instanceof RejectedException
              ? new RejectedException(
                  call.kindName()
                      + " rejected by every server tried ("
                      + call.triedServers()
                      + "): "
                      + last.getMessage())
              : new ConnectionErrorException(
                  call.kindName()
                      + " failed on every server tried ("
                      + call.triedServers()
                      + "): "
                      + last.getMessage(),
                  last));
    }
  }

  /** Power of two choices among the connected servers the call has not tried; null if none fits. */
  private Server pick(BalancedCall call) {
    Server[] ready = servers.ready();
    int n = ready.length;
    if (n == 0) {
      return null;
    }
    long now = System.nanoTime();
    if (n > 2) {
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      int i = rnd.nextInt(n);
      int j = rnd.nextInt(n - 1);
      if (j >= i) {
        j++;
      }
      Server a = ready[i];
      Server b = ready[j];
      // The fleet's typical latency only when a choice is not measured yet (rare once warm).
      double typical = a.measured() && b.measured() ? 1 : Server.typicalNanos(ready, now);
      double ca = usable(a, call) ? cost(a, call, now, typical) : Double.POSITIVE_INFINITY;
      double cb = usable(b, call) ? cost(b, call, now, typical) : Double.POSITIVE_INFINITY;
      if (ca != Double.POSITIVE_INFINITY || cb != Double.POSITIVE_INFINITY) {
        return ca <= cb ? a : b;
      }
    }
    // Two servers or fewer, or both choices unusable: the cheapest of all that can take it.
    Server best = null;
    double bestCost = Double.POSITIVE_INFINITY;
    double typical = Server.typicalNanos(ready, now);
    int start = n > 1 ? ThreadLocalRandom.current().nextInt(n) : 0;
    for (int k = 0; k < n; k++) {
      Server s = ready[(start + k) % n];
      if (!usable(s, call)) {
        continue;
      }
      double c = cost(s, call, now, typical);
      if (c < bestCost) {
        best = s;
        bestCost = c;
      }
    }
    return best;
  }

  private static double cost(Server s, BalancedCall call, long now, double typicalNanos) {
    return s.cost(call.rank, now, call.kind == BalancedCall.RESPONSE, typicalNanos);
  }

  private static boolean usable(Server s, BalancedCall call) {
    Requester conn = s.live;
    return conn != null && !call.hasTried(conn);
  }

  private String availabilities(int rank) {
    StringBuilder b = new StringBuilder();
    for (Server s : servers.ready()) {
      b.append(b.length() == 0 ? "" : ", ").append(s).append(": ").append(s.availability(rank));
    }
    return b.toString();
  }

  void unpark(BalancedCall call) {
    servers.unpark(call);
  }

  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    Server[] ready = servers.ready();
    if (closed || ready.length == 0) {
      metadata.release();
      listener.onError(
          closed
              ? new ConnectionCloseException("the balancer is closed")
              : new ConnectionErrorException("metadata-push: no server connected"));
      return;
    }
    // Connection-level metadata goes to every connected server.
    AtomicInteger left = new AtomicInteger(ready.length);
    java.util.concurrent.atomic.AtomicBoolean told = new java.util.concurrent.atomic.AtomicBoolean();
    StreamListener each =
        new StreamListener() {
          @Override
          public void onNext(Message message) {
            message.release();
          }

          @Override
          public void onComplete() {
            if (left.decrementAndGet() == 0 && told.compareAndSet(false, true)) {
              listener.onComplete();
            }
          }

          @Override
          public void onError(Throwable cause) {
            left.decrementAndGet();
            if (told.compareAndSet(false, true)) {
              listener.onError(cause);
            }
          }
        };
    try {
      for (Server s : ready) {
        Requester conn = s.live;
        Message copy = BalancedCall.duplicate(metadata);
        if (conn == null) {
          copy.release();
          each.onComplete();
        } else {
          conn.metadataPush(copy, each);
        }
      }
    } finally {
      metadata.release();
    }
  }

  /** The best availability among the connected servers (0 with none). */
  @Override
  public double availability() {
    return availability(0);
  }

  @Override
  public double availability(int rank) {
    double best = 0;
    for (Server s : servers.ready()) {
      best = Math.max(best, s.availability(rank));
    }
    return best;
  }

  @Override
  public ByteBufAllocator alloc() {
    return alloc;
  }

  /** The balancer's control executor (connections have their own loops). */
  @Override
  public Executor executor() {
    return ctl;
  }

  /** True until {@link #close()} or {@link #dispose()}. */
  @Override
  public boolean isOpen() {
    return !closed;
  }

  /** Stops discovery and closes every connection gracefully (live streams finish). */
  @Override
  public void close() {
    shutdown(true);
  }

  /** Stops discovery and closes every connection at once (live streams fail). */
  @Override
  public void dispose() {
    shutdown(false);
  }

  private void shutdown(boolean graceful) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    source.close();
    servers.onCtl(
        () ->
            servers
                .close(graceful)
                .whenComplete(
                    (v, e) -> {
                      if (ownsExecutor) {
                        ctl.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
                      }
                      closeFuture.complete(null);
                    }));
  }

  @Override
  public CompletableFuture<Void> onClose() {
    return closeFuture;
  }

  // ---------------------------------------------------------------------------------------------
  // Observing
  // ---------------------------------------------------------------------------------------------

  /** One server as the balancer sees it. */
  public record ServerStatus(
      SocketAddress address,
      String state,
      long requests,
      int inflight,
      double latencyMicros,
      double availability,
      int failures,
      String lastError) {}

  /**
   * Every server in use now (state: connected, probing, reconnecting, connecting or ejected), with
   * the attempts sent to it. Waits for the control executor (at most 5 s), so that the address
   * updates and connection events handed to it before are reflected; if it is busy for longer (a
   * connector that takes long, e.g. a first connect setting up TLS or event loops), answers with
   * the servers it published last and each one's state now, instead of failing.
   */
  public List<ServerStatus> servers() {
    CompletableFuture<List<ServerStatus>> f = new CompletableFuture<>();
    servers.onCtl(() -> f.complete(servers.status()));
    try {
      return f.get(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return servers.status(); // the control executor is busy: what it published last
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return servers.status();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("the balancer's status failed", e.getCause());
    }
  }

  /**
   * What the balancer holds, for monitoring (and for checking that it stays bounded): servers in
   * use, their open or closing connections, and requests waiting for a server. Any thread.
   */
  public record Retained(int servers, int connections, int pending) {}

  /**
   * What the balancer has done so far, for metrics: attempts sent to a server (picks), attempts
   * that were retries of an earlier one of their call, and servers ejected after consecutive
   * failures. Monotonic; any thread.
   */
  public record Counts(long picks, long retries, long ejections) {}

  /** See {@link Counts}. Any thread; a snapshot. */
  public Counts counts() {
    return new Counts(servers.picks.sum(), servers.retries.sum(), servers.ejections.sum());
  }

  /** See {@link Retained}. Any thread; a snapshot. */
  public Retained retained() {
    return new Retained(servers.serverCount(), servers.connectionCount(), servers.pendingCount());
  }

  @Override
  public String toString() {
    return "Balancer(" + source + ")";
  }

  /**
   * Builds a {@link Balancer}. Defaults: rank 0 and nothing idempotent, every address in use (no
   * aperture), backoff 100 ms doubling to 5 s, 5 consecutive failures eject, 3 attempts, a wait
   * of 5 s for a first server, 1024 waiting requests at most, latency forgotten after 2 s without samples.
   */
  public static final class Builder {
    AddressSource source;
    Function<SocketAddress, CompletableFuture<Requester>> connector;
    ToIntFunction<Message> rankOf = m -> 0;
    Predicate<Message> retryable = m -> false;
    int aperture;
    Duration backoffInitial = Duration.ofMillis(100);
    Duration backoffMax = Duration.ofSeconds(5);
    int failureThreshold = 5;
    int maxAttempts = 3;
    AttemptObserver attemptObserver = AttemptObserver.NONE;
    Duration waitForServer = Duration.ofSeconds(5);
    int maxPending = 1024;
    Duration latencyDecay = Duration.ofSeconds(2);
    EventExecutorGroup executor;
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;

    private Builder() {}

    /**
     * Tells {@code observer} of every call's attempts (default {@link AttemptObserver#NONE}): a
     * tracer makes each attempt a span under the call's span.
     */
    public Builder attemptObserver(AttemptObserver observer) {
      this.attemptObserver = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** Where the servers come from (required). The balancer closes it when it closes. */
    public Builder addresses(AddressSource source) {
      this.source = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Opens a connection to one server (required), e.g. {@code address ->
     * Connections.connect(TcpClientTransport.create((InetSocketAddress) address), options, setup,
     * r -> responder)}. Called on the balancer's executor; must not block.
     */
    public Builder connector(Function<SocketAddress, CompletableFuture<Requester>> connector) {
      this.connector = Objects.requireNonNull(connector, "connector");
      return this;
    }

    /**
     * The priority rank of a request (0, the default, is the highest): a server whose lease
     * refuses that rank is not chosen. E.g. {@code RpcRequests::rank} for RPC calls. Must not
     * keep or release the message.
     */
    public Builder rankOf(ToIntFunction<Message> rankOf) {
      this.rankOf = Objects.requireNonNull(rankOf, "rankOf");
      return this;
    }

    /**
     * Whether a request is idempotent, so a connection error before any answer may be retried on
     * another server (default: none is). E.g. {@code RpcRequests::idempotent}. Must not keep or
     * release the message.
     */
    public Builder retryable(Predicate<Message> retryable) {
      this.retryable = Objects.requireNonNull(retryable, "retryable");
      return this;
    }

    /**
     * Uses a subset of {@code servers} addresses (0, the default: all), chosen per balancer by
     * rendezvous hashing so that many clients spread over a large fleet; an ejected server's place
     * is taken by the next address until it answers again.
     */
    public Builder aperture(int servers) {
      if (servers < 0) {
        throw new IllegalArgumentException("aperture must be 0 (all) or positive: " + servers);
      }
      this.aperture = servers;
      return this;
    }

    /**
     * Reconnect delays: {@code initial} doubling per consecutive failure up to {@code max}, each a
     * random delay between half and all of its step; a reconnect after a clean close or a drain
     * waits the first step's.
     */
    public Builder backoff(Duration initial, Duration max) {
      new Backoff(initial, max); // validates
      this.backoffInitial = initial;
      this.backoffMax = max;
      return this;
    }

    /** Consecutive failures (connects, lost connections, connection errors) that eject a server. */
    public Builder failureThreshold(int failures) {
      this.failureThreshold = positive(failures, "failure threshold");
      return this;
    }

    /** Attempts per request, the first included (default 3; 1 turns retries off). */
    public Builder maxAttempts(int attempts) {
      if (attempts < 1 || attempts > 16) {
        throw new IllegalArgumentException("max attempts must be 1..16: " + attempts);
      }
      this.maxAttempts = attempts;
      return this;
    }

    /** How long a request waits for a first connected server before it fails (default 5 s). */
    public Builder waitForServer(Duration wait) {
      if (wait.isNegative() || wait.toMillis() > 3_600_000L) {
        throw new IllegalArgumentException("wait for server must be 0..1 h: " + wait);
      }
      this.waitForServer = wait;
      return this;
    }

    /** Requests that may wait for a server at once; more are REJECTED (default 1024). */
    public Builder maxPending(int requests) {
      this.maxPending = positive(requests, "max pending");
      return this;
    }

    /**
     * How long a server's latency average is trusted without new samples; after that it decays by
     * this time constant, so a server avoided for being slow gets a request again (default 2 s).
     */
    public Builder latencyDecay(Duration tau) {
      if (tau.toMillis() <= 0) {
        throw new IllegalArgumentException("latency decay must be positive: " + tau);
      }
      this.latencyDecay = tau;
      return this;
    }

    /**
     * Runs the balancer's own work (discovery updates, reconnect timers) on one executor of {@code
     * group}, e.g. the transport's event loop group. Default: a thread of its own, stopped on
     * close.
     */
    public Builder executor(EventExecutorGroup group) {
      this.executor = Objects.requireNonNull(group, "group");
      return this;
    }

    /** The allocator {@link Balancer#alloc()} hands out (default {@link ByteBufAllocator#DEFAULT}). */
    public Builder alloc(ByteBufAllocator alloc) {
      this.alloc = Objects.requireNonNull(alloc, "alloc");
      return this;
    }

    /** Builds the balancer and starts discovery and connecting. */
    public Balancer build() {
      if (source == null) {
        throw new IllegalStateException("Balancer.Builder.addresses(...) is required");
      }
      if (connector == null) {
        throw new IllegalStateException("Balancer.Builder.connector(...) is required");
      }
      Balancer b = new Balancer(this);
      b.servers.start(source);
      return b;
    }

    private static int positive(int n, String what) {
      if (n <= 0) {
        throw new IllegalArgumentException(what + " must be positive: " + n);
      }
      return n;
    }
  }
}
