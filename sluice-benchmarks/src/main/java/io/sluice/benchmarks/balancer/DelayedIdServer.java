package io.sluice.benchmarks.balancer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The Sluice server of {@code ./sluice bench --balancer}: answers every request-response with its id
 * after a fixed delay, taken on a timer thread of its own (the event loop never waits); the answer
 * is handed back to the loop by {@link StreamHandle}. One event loop. With {@code lease adaptive}
 * it leases with {@link AdaptiveLeasePolicy#withDefaults()} (what {@code ./sluice server --lease}
 * runs); with {@code lease fixed} it grants {@link #LEASE}, far above the run's rate.
 */
public final class DelayedIdServer implements BalancerChild.Servers {
  /** The grant of {@code --lease fixed}: per connection, renewed every half ttl. */
  static final int LEASE_TTL_MILLIS = 10_000;

  static final int LEASE_REQUESTS = 1_000_000;

  static final LeasePolicy LEASE =
      LeasePolicy.fixed(Duration.ofMillis(LEASE_TTL_MILLIS), LEASE_REQUESTS);

  /** What {@code lease adaptive} grants, for the run's header. */
  public static final String ADAPTIVE_TEXT =
      "sluice-lease's AdaptiveLeasePolicy.withDefaults() (as ./sluice server --lease)";

  @Override
  public int serve(int id, long delayNanos, String lease) throws Exception {
    ByteBuf answer =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer(BalancerChild.ID_BYTES).writeInt(id));
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "balancer-server-timer");
              t.setDaemon(true);
              return t;
            });
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-server-loop");
    ConnectionOptions.Builder options = ConnectionOptions.builder();
    if (lease.equals("adaptive")) {
      options.leasePolicy(AdaptiveLeasePolicy.withDefaults());
    } else if (lease.equals("fixed")) {
      // The same grant both ways: an engine that reads the policy, and one that still reads the
      // grant's ttl and requests (before leasing is wired to policies).
      options.leaseGrant(LEASE_TTL_MILLIS, LEASE_REQUESTS).leasePolicy(LEASE);
    }
    ServerTransport.Bound bound =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(loop),
                options.build(),
                (setup, requester) -> new Delayed(answer, delayNanos, timer))
            .get(10, TimeUnit.SECONDS);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  /** Answers request-responses after the delay; other interactions are refused by default. */
  private static final class Delayed implements Responder {
    private final ByteBuf answer;
    private final long delayNanos;
    private final ScheduledExecutorService timer;

    Delayed(ByteBuf answer, long delayNanos, ScheduledExecutorService timer) {
      this.answer = answer;
      this.delayNanos = delayNanos;
      this.timer = timer;
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      request.release();
      timer.schedule(
          () -> response.nextAndComplete(Message.of(answer)), delayNanos, TimeUnit.NANOSECONDS);
      return StreamListener.DISCARDING;
    }
  }
}
