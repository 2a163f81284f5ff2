package io.sluice.transport.netty;

import io.sluice.transport.netty.internal.EventLoops;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The JVM-wide event loops (threads named {@code sluice-io-...}) that every netty-based transport
 * runs on when it is given no event loop group of its own: TCP and unix sockets here, and the
 * WebSocket, HTTP/2 and gRPC transports. They are made on first use, one group per I/O engine (one
 * thread per core), and their threads are daemon threads, so they never keep a JVM alive; but they
 * run until the JVM ends unless shut down here.
 *
 * <p>Shut them down when the application is done with Sluice (at the end of {@code main}, when a
 * web application is undeployed, at the end of a test suite): close your clients and servers first
 * ({@code dispose()}/{@code close()} and wait for {@code onClose()}), then call {@link
 * #shutdownGracefully()} and wait for the future. Channels still open on these loops are closed when
 * the loops end. A transport used afterwards runs on new shared loops (new threads), so calling this
 * is safe even if some library still connects later; it is not safe while your own connections on
 * them are still in use.
 *
 * <p>Groups you passed to a transport yourself ({@code withEventLoopGroup}) are yours to shut down;
 * this touches only the shared ones.
 */
public final class SharedEventLoops {
  private SharedEventLoops() {}

  /**
   * Shuts down the shared event loops made so far at once (no quiet period; at most 15 s for the
   * tasks already queued). Same as {@code shutdownGracefully(Duration.ZERO, Duration.ofSeconds(15))}.
   *
   * @return completes when every thread of those loops has ended (at once when there were none)
   */
  public static CompletableFuture<Void> shutdownGracefully() {
    return shutdownGracefully(Duration.ZERO, Duration.ofSeconds(15));
  }

  /**
   * Shuts down the shared event loops made so far, as netty's {@code shutdownGracefully}: each loop
   * refuses new tasks, runs those queued, waits until no task came for {@code quietPeriod}, and ends
   * at the latest after {@code timeout}.
   *
   * @return completes when every thread of those loops has ended (at once when there were none)
   * @throws IllegalArgumentException if {@code quietPeriod} is negative or above {@code timeout}
   */
  public static CompletableFuture<Void> shutdownGracefully(Duration quietPeriod, Duration timeout) {
    Objects.requireNonNull(quietPeriod, "quietPeriod");
    Objects.requireNonNull(timeout, "timeout");
    if (quietPeriod.isNegative() || quietPeriod.compareTo(timeout) > 0) {
      throw new IllegalArgumentException(
          "quietPeriod must be 0 to timeout, got " + quietPeriod + " and " + timeout);
    }
    return EventLoops.shutdownShared(quietPeriod.toMillis(), timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
