package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.ServerTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A responder that emits inside onRequest (a synchronous generator under unbounded demand) keeps
 * its event loop busy for as long as the peer reads. The pump yields after a few windows; it must
 * yield to the loop's I/O, not only to its queued tasks, or a CANCEL already in the socket waits
 * while the loop runs a batch of pump tasks (up to 64 on netty: tens of thousands of messages,
 * seconds on a loaded machine; seen as OneObjectCallsTest.streamCancelInOnNextEndsTheStream
 * timing out). The client is a raw socket, so the moment the CANCEL is in the server's socket is
 * known, and the count of messages produced after it does not depend on thread scheduling.
 */
class SynchronousProducerYieldsTest {

  /** Emits "x" for each unit of demand, inside onRequest; remembers the count at the cancel. */
  static final class Generator implements Responder {
    final AtomicLong produced = new AtomicLong();
    final AtomicLong producedAtCancel = new AtomicLong(-1);
    final CountDownLatch firstRequest = new CountDownLatch(1);
    final CountDownLatch cancelled = new CountDownLatch(1);

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      request.release();
      return new StreamListener() {
        @Override
        public void onRequest(long n) {
          firstRequest.countDown();
          for (long i = 0; i < n && cancelled.getCount() > 0; i++) {
            produced.incrementAndGet();
            stream.next(Message.utf8(stream.alloc(), "x"));
          }
        }

        @Override
        public void onCancel() {
          producedAtCancel.set(produced.get());
          cancelled.countDown();
        }

        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }
  }

  private static void writeFrame(OutputStream out, ByteBuf frame) throws IOException {
    try {
      byte[] bytes = ByteBufUtil.getBytes(frame);
      out.write(new byte[] {(byte) (bytes.length >>> 16), (byte) (bytes.length >>> 8), (byte) bytes.length});
      out.write(bytes);
      out.flush();
    } finally {
      frame.release();
    }
  }

  @Test
  void aCancelInTheSocketIsReadWithinAFewWindowsOfAnUnboundedSynchronousStream() throws Exception {
    Generator generator = new Generator();
    ConnectionOptions options = ConnectionOptions.defaults();
    ServerTransport.Bound bound =
        Connections.serve(TcpServerTransport.create("127.0.0.1", 0), options, (setup, r) -> generator)
            .get(30, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 30_000);
      s.setSoTimeout(30_000); // hang guard
      OutputStream out = s.getOutputStream();
      ByteBuf setup = Unpooled.buffer();
      Setup.write(
          setup, false, 60_000, 120_000, null, "application/binary", "application/binary", null,
          Unpooled.EMPTY_BUFFER);
      writeFrame(out, setup);
      ByteBuf request = Unpooled.buffer();
      Frames.writeRequestHeader(request, 1, FrameType.REQUEST_STREAM, 0, Integer.MAX_VALUE);
      request.writeByte('g');
      writeFrame(out, request);
      // Read as fast as the server writes, so that it stays writable and keeps producing.
      InputStream in = s.getInputStream();
      Thread reader =
          new Thread(
              () -> {
                byte[] buf = new byte[64 * 1024];
                try {
                  while (in.read(buf) != -1) {
                    // discard
                  }
                } catch (IOException closed) {
                  // the test closes the socket
                }
              },
              "sync-producer-reader");
      reader.setDaemon(true);
      reader.start();
      assertThat(generator.firstRequest.await(30, TimeUnit.SECONDS)).as("the stream started").isTrue();
      ByteBuf cancel = Unpooled.buffer();
      Frames.writeCancel(cancel, 1);
      writeFrame(out, cancel); // on loopback: in the server's socket once write returns
      long atWrite = generator.produced.get();
      assertThat(generator.cancelled.await(30, TimeUnit.SECONDS)).as("the server saw the CANCEL").isTrue();
      long window = options.outboundWindow();
      // The pump grants at most 4 windows per task, then the loop reads: the task running when
      // the CANCEL arrived and at most one more. Without the yield to I/O: up to 64 tasks.
      assertThat(generator.producedAtCancel.get() - atWrite)
          .as("messages produced after the CANCEL was in the server's socket (window %s)", window)
          .isLessThanOrEqualTo(16 * window);
      s.close();
      reader.join(30_000);
    } finally {
      bound.close();
    }
  }
}
