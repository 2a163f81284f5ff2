package io.sluice.balancer;

import io.sluice.Requester;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One server of a {@link Balancer}: its connection and what the balancer measures of it.
 *
 * <p><b>Threads.</b> The connection lifecycle fields are confined to the balancer's control
 * executor ({@link ServerSet}); the measurements are read and written from any thread, racy by
 * design (a lost latency sample costs nothing).
 */
final class Server {
  /** A cost for an unmeasured server with a call in flight: last choice, but still a choice. */
  private static final double PENALTY = 1e15;

  final SocketAddress address;

  // Control executor only.
  Requester conn; // the current connection, or null
  long connectedNanos; // when conn connected
  /** Earlier connections closing gracefully (a drain, an ejection), oldest first; bounded. */
  final ArrayDeque<Requester> closing = new ArrayDeque<>(2);
  boolean removed; // gone from the address set: drained and forgotten
  ScheduledFuture<?> reconnect;

  // Written on the control executor, read by Balancer.servers() on any thread.
  volatile boolean connecting;
  volatile String lastError; // why the last connect or connection failed, for error messages

  // Any thread.
  /** The connection requests may use, or null. */
  volatile Requester live;

  /** The connection whose loss was last counted as a failure (one per connection). */
  volatile Requester lastCounted;

  /** The last connection that delivered an answer (it worked). */
  volatile Requester answeredOn;

  /** Calls in flight: request-responses, streams and channels. */
  final AtomicInteger inflight = new AtomicInteger();

  /** Request-responses in flight: the calls whose answer is a latency sample. */
  final AtomicInteger responses = new AtomicInteger();
  /** Consecutive failures (connects, lost connections, connection errors of requests). */
  final AtomicInteger failures = new AtomicInteger();

  final LongAdder requests = new LongAdder();
  private volatile double ewmaNanos; // 0: not measured yet
  private volatile long lastSampleNanos;
  private final double tauNanos;

  Server(SocketAddress address, long tauNanos) {
    this.address = address;
    this.tauNanos = tauNanos;
  }

  /**
   * A latency sample (request to first response) into the average: rises fast (half of the way
   * to a higher sample), falls slowly (a fifth of the way to a lower one), so a server that got
   * slow is avoided at once and one outlier is forgotten after a few answers.
   */
  void observe(long latencyNanos, long now) {
    double e = ewmaNanos;
    double sample = Math.max(1, latencyNanos);
    if (e == 0) {
      e = sample;
    } else {
      e += (sample > e ? 0.5 : 0.2) * (sample - e);
    }
    ewmaNanos = e;
    lastSampleNanos = now;
  }

  /**
   * The latency average, decayed once no sample came for the decay time (and on, by that time
   * constant), so a server avoided for being slow is tried again.
   */
  double latencyNanos(long now) {
    double e = ewmaNanos;
    if (e == 0) {
      return 0;
    }
    long idle = now - lastSampleNanos;
    return idle > tauNanos ? e * Math.exp(-(idle - tauNanos) / tauNanos) : e;
  }

  /** The availability of the current connection for {@code rank}; 0 without one. */
  double availability(int rank) {
    Requester r = live;
    if (r == null) {
      return 0;
    }
    double a = rank == 0 ? r.availability() : r.availability(rank);
    return a > 0 ? Math.min(1, a) : 0;
  }

  /**
   * What sending one more request here costs: latency times (calls in flight + 1) over
   * availability; infinite when the server has no availability for {@code rank}. An unmeasured
   * server costs its calls in flight (next to nothing) and a penalty while a request-response is in
   * flight there: it gets one probe at a time until its first answer measures it. Streams and
   * channels in flight do not hold it back, since their first message is no measure of latency (a
   * subscription may wait minutes for it).
   */
  double cost(int rank, long now) {
    double a = availability(rank);
    if (!(a > 0)) {
      return Double.POSITIVE_INFINITY;
    }
    int n = inflight.get();
    double latency = latencyNanos(now);
    if (latency == 0) {
      return responses.get() == 0 ? n : PENALTY + n;
    }
    return latency * (n + 1) / a;
  }

  /** An answer arrived: the server works. Returns the consecutive failures it ends (0: none). */
  int onSuccess() {
    int f = failures.get();
    if (f != 0) {
      failures.set(0);
    }
    return f;
  }

  @Override
  public String toString() {
    return BalancerAddresses.format(address);
  }
}
