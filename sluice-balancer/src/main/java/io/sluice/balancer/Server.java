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
   * availability, in nanoseconds; infinite when the server has no availability for {@code rank}.
   *
   * <p>A server not measured yet (no request-response answered there) is costed as a server of
   * the fleet's typical latency, {@code typicalNanos} (the mean of the measured servers', as
   * gRPC's weighted round robin gives an endpoint without weights the mean weight): in the same
   * units as the measured ones, so it is neither always picked nor never. A request-response that
   * would be its first probe (none in flight there) goes to it at once ({@code probe}): its answer
   * measures the server. Streams and channels are no probe, since their first message is no
   * measure of latency (a subscription may wait minutes for it).
   */
  double cost(int rank, long now, boolean probe, double typicalNanos) {
    double a = availability(rank);
    if (!(a > 0)) {
      return Double.POSITIVE_INFINITY;
    }
    int n = inflight.get();
    double latency = latencyNanos(now);
    if (latency == 0) {
      if (probe && responses.get() == 0) {
        return 0;
      }
      latency = typicalNanos;
    }
    return latency * (n + 1) / a;
  }

  /**
   * The mean latency of the measured servers among {@code fleet}, what an unmeasured server is
   * taken to have; 1 when none is measured (every server then costs its calls in flight).
   */
  static double typicalNanos(Server[] fleet, long now) {
    double sum = 0;
    int measured = 0;
    for (Server s : fleet) {
      double l = s.latencyNanos(now);
      if (l > 0) {
        sum += l;
        measured++;
      }
    }
    return measured == 0 ? 1 : sum / measured;
  }

  /** True once a request-response answered here gave a latency sample. */
  boolean measured() {
    return ewmaNanos != 0;
  }

  /**
   * An answer arrived: the server works. Returns the consecutive failures it ends (0: none), in
   * one atomic step: a failure counted meanwhile is either ended here or still counted, and two
   * answers never both end the same ones. The plain read first keeps the common case (no
   * failures) free of a write.
   */
  int onSuccess() {
    return failures.get() == 0 ? 0 : failures.getAndSet(0);
  }

  @Override
  public String toString() {
    return BalancerAddresses.format(address);
  }
}
