package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client's keepalive timer after its event loop was held up (a long GC pause, a handler that
 * blocked the loop): it must not send the keepalives it missed back to back, which a Sluice server
 * counts against its bound ({@link ConnectionOptions#maxKeepAlivesPerSecond()}, 16 a second by
 * default) and answers by closing the connection. A timer at a fixed rate does exactly that: after a
 * 3 s stall with a 100 ms period it owes 30 ticks and runs them at once.
 */
class KeepAliveAfterStallTest {
  private final DefaultEventExecutor loop = new DefaultEventExecutor();

  @AfterEach
  void stop() throws InterruptedException {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /** A server that counts KEEPALIVEs against the engine's bound, as a Sluice server does. */
  private final class CountsKeepAlives extends RawPeer {
    final RateBudget bound =
        new RateBudget(ConnectionOptions.defaults().maxKeepAlivesPerSecond(), loop.ticker());
    final AtomicInteger seen = new AtomicInteger();
    final List<Integer> overBound = new CopyOnWriteArrayList<>();

    @Override
    public void onFrame(ByteBuf f) {
      if (Frames.type(f) == FrameType.KEEPALIVE && !bound.take()) {
        overBound.add(seen.get() + 1);
      }
      if (Frames.type(f) == FrameType.KEEPALIVE) {
        seen.incrementAndGet();
      }
    }
  }

  @Test
  void aStalledLoopDoesNotSendTheKeepalivesItMissedInABurst() throws Exception {
    PipeTransport[] ends = PipeTransport.pair(loop);
    CountsKeepAlives server = new CountsKeepAlives();
    Loop.run(loop, () -> ends[0].start(server));
    Requester client =
        Loop.await(
            Connections.connect(
                () -> CompletableFuture.completedFuture((DuplexTransport) ends[1]),
                ConnectionOptions.builder()
                    .keepAlive(Duration.ofMillis(100), Duration.ofSeconds(60))
                    .build(),
                ClientSetup.defaults(),
                x -> new Responder() {}));
    // The loop stalls for 3 s (30 periods), then runs on for 1.5 s.
    CountDownLatch stalled = new CountDownLatch(1);
    loop.execute(
        () -> {
          stalled.countDown();
          sleep(3000);
        });
    assertThat(stalled.await(Loop.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Loop.run(loop, () -> {}); // past the stall
    int atStallEnd = server.seen.get();
    sleep(1500);
    Loop.settle(loop);
    assertThat(server.seen.get()).as("keepalives sent after the stall").isGreaterThan(atStallEnd);
    assertThat(server.overBound)
        .as("keepalives past the server's bound of %s a second (%s seen)",
            ConnectionOptions.defaults().maxKeepAlivesPerSecond(), server.seen.get())
        .isEmpty();
    assertThat(client.isOpen()).isTrue();
    Loop.run(loop, ((SluiceConnection) client)::dispose);
    Loop.settle(loop);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
