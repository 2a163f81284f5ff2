package io.sluice.transport.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * After the decision to close, a lingering close reads and discards what the peer still sends, so
 * that the peer is not reset before it read our last output. A peer that floods meanwhile must not
 * keep a core busy that way: what is read after the close is bounded.
 */
class LingerBoundTest {

  /** Closes the transport at the first frame. */
  static final class CloseAtFirstFrame implements FrameReceiver {
    final NettyDuplexTransport transport;

    CloseAtFirstFrame(NettyDuplexTransport transport) {
      this.transport = transport;
    }

    @Override
    public int maxFrameSize() {
      return 64 * 1024;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 64 * 1024;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      transport.close();
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

  @Test
  void aPeerFloodingAfterTheCloseIsReadOnlyUpToTheBound() throws Exception {
    CompletableFuture<NettyDuplexTransport> server = new CompletableFuture<>();
    ServerTransport.Bound bound =
        TcpServerTransport.create("127.0.0.1", 0)
            .bind(
                t -> {
                  NettyDuplexTransport n = (NettyDuplexTransport) t;
                  t.start(new CloseAtFirstFrame(n));
                  server.complete(n);
                })
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    AtomicLong written = new AtomicLong();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      // Frames of 1 KiB back to back, up to 256 MiB: the first one makes the server close, the
      // rest is a flood. The write blocks once the server stops reading, and fails once it closes.
      byte[] chunk = new byte[64 * (3 + 1024)];
      for (int i = 0; i < 64; i++) {
        chunk[i * 1027 + 1] = 0x04; // u24 length 1024
      }
      try {
        OutputStream out = s.getOutputStream();
        for (int i = 0; i < 4096; i++) {
          out.write(chunk);
          written.addAndGet(chunk.length);
        }
      } catch (IOException e) {
        // the server ended the connection: expected once its lingering close gives up
      }
    } finally {
      bound.close();
    }
    NettyDuplexTransport t = server.get(10, TimeUnit.SECONDS);
    t.executor().submit(() -> {}).get(10, TimeUnit.SECONDS);
    long discarded = t.executor().submit(t::discardedWhileClosing).get(10, TimeUnit.SECONDS);
    assertThat(written.get()).as("the flood went beyond the bound").isGreaterThan(NettyDuplexTransport.LINGER_MAX_BYTES);
    assertThat(discarded)
        .as("bytes read and discarded after the close (flood of %s bytes)", written.get())
        .isLessThanOrEqualTo(NettyDuplexTransport.LINGER_MAX_BYTES + (1 << 20));
  }
}
