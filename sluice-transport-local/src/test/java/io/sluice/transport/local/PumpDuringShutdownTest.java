package io.sluice.transport.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A responder's pump yields to the event loop every few windows (StreamState.schedulePump). A
 * netty I/O event loop that shuts down gracefully cancels its scheduled tasks, at every pass, and
 * still runs its queued ones: a stream whose pump yields then must be pumped to its end, not stall
 * at a cancelled continuation. The local transport has no channel, so the shutdown does not close
 * the connection under the stream.
 */
class PumpDuringShutdownTest {

  /** Emits "0", "1", ... on demand inside onRequest, completing after {@code total}. */
  private static final class Sequence implements Responder {
    private final long total;

    Sequence(long total) {
      this.total = total;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle h) {
      request.release();
      long[] next = {0};
      return new StreamListener() {
        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && next[0] < total; i++) {
            long k = next[0]++;
            Message m = Message.utf8(h.alloc(), Long.toString(k));
            if (k == total - 1) {
              h.nextAndComplete(m);
            } else {
              h.next(m);
            }
          }
        }

        @Override
        public void onNext(Message m) {
          m.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }
  }

  @Test
  void aYieldingPumpGoesOnWhileItsLoopShutsDownGracefully() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    int total = 5_000;
    ConnectionOptions options = ConnectionOptions.builder().outboundWindow(8).build();
    String name = "pump-during-shutdown-" + System.nanoTime();
    ServerTransport.Bound bound =
        Connections.serve(
                LocalTransport.server(name, group, PooledByteBufAllocator.DEFAULT),
                options,
                (setup, r) -> new Sequence(total))
            .get(30, TimeUnit.SECONDS);
    Requester client =
        Connections.connect(
                LocalTransport.client(name, group, PooledByteBufAllocator.DEFAULT),
                options,
                ClientSetup.defaults(),
                r -> new Responder() {})
            .get(30, TimeUnit.SECONDS);
    AtomicLong received = new AtomicLong();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamListener rx =
        new StreamListener() {
          @Override
          public void onNext(Message m) {
            m.release();
            received.incrementAndGet();
          }

          @Override
          public void onComplete() {
            done.complete(null);
          }

          @Override
          public void onError(Throwable cause) {
            done.completeExceptionally(cause);
          }
        };
    try {
      // The shutdown begins (on the loop: at once) before the stream starts, so each yield of
      // its pump happens while the loop shuts down; the loop ends after 1 s without a task.
      CompletableFuture.runAsync(
              () -> {
                group.shutdownGracefully(1, 60, TimeUnit.SECONDS);
                client.requestStream(Message.utf8("go"), Long.MAX_VALUE, rx);
              },
              client.executor())
          .get(30, TimeUnit.SECONDS);
      assertThat(group.terminationFuture().await(60, TimeUnit.SECONDS)).as("the loop ended").isTrue();
      assertThat(received.get()).as("messages received of %s", total).isEqualTo(total);
      assertThat(done).as("the stream completed").isCompleted();
    } finally {
      bound.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
