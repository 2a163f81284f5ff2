package io.sluice.transport.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that writes and closes before the client side has started (an immediate refusal): the
 * client must still get what was written, then the close, once it starts, as a socket's reader
 * would read the bytes and then EOF.
 */
class LocalCloseBeforeStartTest {
  private final EventExecutorGroup loops = new DefaultEventExecutorGroup(2);

  @AfterEach
  void stop() throws InterruptedException {
    loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /** Records frames as text and the close. */
  static final class Recording implements FrameReceiver {
    final List<String> events = new CopyOnWriteArrayList<>();
    final CountDownLatch closed = new CountDownLatch(1);

    @Override
    public int maxFrameSize() {
      return 1 << 20;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 1 << 20;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      events.add("frame:" + frame.toString(StandardCharsets.UTF_8));
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {
      events.add("error:" + cause);
    }

    @Override
    public void onClosed() {
      events.add("closed");
      closed.countDown();
    }
  }

  @Test
  void whatTheServerWroteBeforeClosingReachesAClientThatStartsLater() throws Exception {
    String name = "close-before-start-" + System.nanoTime();
    ServerTransport.Bound bound =
        LocalTransport.server(name, loops, PooledByteBufAllocator.DEFAULT)
            .bind(
                t -> {
                  t.start(new Recording());
                  ByteBuf bye = t.alloc().buffer();
                  bye.writeCharSequence("bye", StandardCharsets.UTF_8);
                  t.write(bye);
                  t.close();
                })
            .get(10, TimeUnit.SECONDS);
    try {
      DuplexTransport client =
          LocalTransport.client(name, loops, PooledByteBufAllocator.DEFAULT)
              .connect()
              .get(10, TimeUnit.SECONDS);
      // Let the server's close reach the client's loop before the client starts.
      client.executor().submit(() -> {}).get(10, TimeUnit.SECONDS);
      client.executor().submit(() -> {}).get(10, TimeUnit.SECONDS);
      Recording r = new Recording();
      client.executor().submit(() -> client.start(r)).get(10, TimeUnit.SECONDS);
      assertThat(r.closed.await(10, TimeUnit.SECONDS)).as("the client learns of the close").isTrue();
      assertThat(r.events).containsExactly("frame:bye", "closed");
    } finally {
      bound.close();
    }
  }
}
