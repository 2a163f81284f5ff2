package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A server that closes a connection with output still queued while the peer is still sending (the
 * core does so after an ERROR for a flood): the peer must still read everything written before the
 * close, then EOF, rather than a cut or a reset that throws away the last bytes (the ERROR saying
 * why it was cut off).
 */
class LingeringCloseTest {

  /** Bytes written before "goodbye": more than the sockets' buffers hold. */
  static final int FILLER = 4 << 20;

  /** Answers the first frame with FILLER zero bytes and "goodbye", then closes; counts frames. */
  static final class ClosingReceiver implements FrameReceiver {
    final DuplexTransport transport;
    final AtomicInteger frames = new AtomicInteger();
    final AtomicInteger closedCalls = new AtomicInteger();
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    ClosingReceiver(DuplexTransport transport) {
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
      if (frames.getAndIncrement() == 0) {
        for (int i = 0; i < FILLER / 65536; i++) {
          transport.write(transport.alloc().buffer(65536).writeZero(65536));
        }
        ByteBuf bye = transport.alloc().buffer();
        bye.writeCharSequence("goodbye", StandardCharsets.US_ASCII);
        transport.write(bye);
        transport.close();
      }
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {}

    @Override
    public void onClosed() {
      closedCalls.incrementAndGet();
      closed.complete(null);
    }
  }

  @Test
  void aPeerStillSendingReadsTheLastBytesThenEof() throws Exception {
    CompletableFuture<ClosingReceiver> receiver = new CompletableFuture<>();
    ServerTransport.Bound bound =
        TcpServerTransport.create("127.0.0.1", 0)
            .bind(
                t -> {
                  ClosingReceiver r = new ClosingReceiver(t);
                  t.start(r);
                  receiver.complete(r);
                })
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      s.setSoTimeout(30_000); // hang guard
      // 16 MiB of 1 KiB frames, written by another thread while this one reads: the server
      // closes after the first frame, with the rest still arriving.
      Thread writer =
          new Thread(
              () -> {
                byte[] chunk = new byte[64 * (3 + 1024)];
                for (int i = 0; i < 64; i++) {
                  chunk[i * 1027 + 1] = 0x04; // u24 length 1024
                }
                try {
                  OutputStream out = s.getOutputStream();
                  for (int i = 0; i < 256; i++) {
                    out.write(chunk);
                  }
                } catch (IOException e) {
                  // the server may end the connection before all of it is written
                }
              },
              "lingering-close-writer");
      writer.start();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[64 * 1024];
      for (int n; (n = in.read(buf)) != -1; ) { // a reset would throw here
        got.write(buf, 0, n);
      }
      byte[] all = got.toByteArray();
      assertThat(all.length).as("bytes read before EOF").isEqualTo(FILLER + 7);
      assertThat(new String(all, FILLER, 7, StandardCharsets.US_ASCII)).isEqualTo("goodbye");
      s.close();
      writer.join(30_000);
    } finally {
      bound.close();
    }
    ClosingReceiver r = receiver.get(10, TimeUnit.SECONDS);
    // The event loop may still be inside close() when the FIN reaches us: the output can drain
    // within close()'s own flush, whose listener sends the FIN before close() tells the receiver.
    r.closed.get(30, TimeUnit.SECONDS);
    assertThat(r.frames).as("frames delivered; none after close").hasValue(1);
    assertThat(r.closedCalls).as("onClosed calls").hasValue(1);
  }
}
