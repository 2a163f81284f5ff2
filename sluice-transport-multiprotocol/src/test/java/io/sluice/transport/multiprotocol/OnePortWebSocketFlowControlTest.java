package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ClientTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WebSocket over HTTP/2 on the one port keeps each RSocket connection's flow control its own, as
 * the dedicated {@code WebSocketOverHttp2ServerTransport} does: RSocket connections whose server
 * engines stopped reading hold their streams' windows, never the TCP connection's window that the
 * others on it need.
 */
class OnePortWebSocketFlowControlTest {
  private static final Duration WAIT = Duration.ofSeconds(30); // hang guard only
  private static final int PAUSED = 5;
  private static final int STREAM_WINDOW = 1 << 20;

  private final List<Callable<?>> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).call();
    }
  }

  /** Counts the frames it is lent (borrowed, as the engine reads them). */
  private static final class Counter implements FrameReceiver {
    final AtomicInteger frames = new AtomicInteger();
    volatile int expected = Integer.MAX_VALUE;
    final CountDownLatch all = new CountDownLatch(1);

    @Override
    public int maxFrameSize() {
      return 1 << 20;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 64 * 1024;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      if (frames.incrementAndGet() >= expected) {
        all.countDown();
      }
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {}

    @Override
    public void onClosed() {}
  }

  private static <T> T onLoop(DuplexTransport t, Callable<T> c) throws Exception {
    return t.executor().submit(c).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Writes {@code count} frames of {@code size} bytes behind the transport's prefix, then flushes. */
  private static void writeFrames(DuplexTransport t, int count, int size) throws Exception {
    onLoop(
        t,
        () -> {
          FramePrefix prefix = t.framePrefix();
          for (int i = 0; i < count; i++) {
            ByteBuf b = t.alloc().buffer(prefix.maxLength() + size);
            prefix.write(b, size);
            b.writeZero(size);
            t.write(b);
          }
          t.flush();
          return null;
        });
  }

  @Test
  void fivePausedConnectionsDoNotStallTheOthersOnTheirTcpConnection() throws Exception {
    BlockingQueue<DuplexTransport> serverEnds = new LinkedBlockingQueue<>();
    ServerTransport.Bound bound =
        MultiProtocolServerTransport.create("127.0.0.1", 0)
            .withStreamWindowSize(STREAM_WINDOW)
            .bind(serverEnds::add)
            .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    toClose.add(() -> { bound.close(); return null; });
    WebSocketOverHttp2ClientTransport client =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", ((InetSocketAddress) bound.address()).getPort())
            .withPath(MultiProtocolServerTransport.DEFAULT_WEBSOCKET_PATH);
    List<DuplexTransport> clients = new ArrayList<>();
    List<DuplexTransport> servers = new ArrayList<>();
    List<Counter> serverReceivers = new ArrayList<>();
    for (int i = 0; i <= PAUSED; i++) {
      DuplexTransport c = client.connect().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      toClose.add(() -> onLoop(c, () -> { c.close(); return null; }));
      DuplexTransport s = serverEnds.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(s).as("server end of connection %d", i).isNotNull();
      Counter receiver = new Counter();
      onLoop(c, () -> { c.start(new Counter()); return null; });
      onLoop(s, () -> { s.start(receiver); return null; });
      clients.add(c);
      servers.add(s);
      serverReceivers.add(receiver);
    }
    assertThat(client.openTcpConnections()).as("one TCP connection carries them all").isEqualTo(1);

    // Each paused server end is sent twice its stream window: it holds a whole window.
    int size = 16 * 1024;
    int perPaused = 2 * STREAM_WINDOW / size;
    for (int i = 0; i < PAUSED; i++) {
      DuplexTransport s = servers.get(i);
      onLoop(s, () -> { s.setReadEnabled(false); return null; });
      writeFrames(clients.get(i), perPaused, size);
    }
    // The last RSocket connection on the same TCP connection gets all it is sent.
    int total = (4 << 20) / size;
    Counter other = serverReceivers.get(PAUSED);
    other.expected = total;
    writeFrames(clients.get(PAUSED), total, size);
    assertThat(other.all.await(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("every frame to the connection still reading, while %d others are paused (got %d of %d)",
            PAUSED, other.frames.get(), total)
        .isTrue();
    for (int i = 0; i < PAUSED; i++) {
      assertThat(serverReceivers.get(i).frames.get())
          .as("frames paused connection %d got: at most its stream's window", i)
          .isLessThanOrEqualTo(STREAM_WINDOW / size + 1);
    }
  }
}
