package io.sluice.transport.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.Tls;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A TLS server whose peer reads nothing: each small answer it flushes waits in the channel's
 * outbound buffer, and must hold about what the buffer counts (its writability, the write-stall
 * guards and every bound on unsent bytes count readable bytes). With the JDK's provider (the
 * default where netty-tcnative is not on the class path) netty's SslHandler encrypts each flush
 * into a heap buffer of the session's packet size, about 16.7 KiB however small the record. netty's
 * socket channels copy a heap buffer written to them into a direct one of its size, but NIO's only
 * with a pooled allocator; with an unpooled one, {@link SnugTlsRecords} does. Through the TCP
 * server transport, on both providers, with netty's default allocator and an unpooled one (set on
 * the connection's channel once it is handed over, so the answers' records are made with it).
 */
class TlsHeldBytesTest {
  /** Small frames the peer sends one at a time, each answered with a small frame and a flush. */
  static final int FRAMES = 100;
  /** What the server writes at the first frame, more than the two sockets' buffers take. */
  static final int BLOB_FRAMES = 16;

  static final int BLOB_FRAME = 512 * 1024;

  /** Answers every frame with a small frame, after a blob the peer will never read at the first. */
  static final class SmallAnswers implements FrameReceiver {
    final NettyDuplexTransport transport;
    final AtomicInteger frames = new AtomicInteger();

    SmallAnswers(NettyDuplexTransport transport) {
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
    public void onFrame(ByteBuf frame) { // lent: read only
      if (frames.get() == 0) {
        for (int i = 0; i < BLOB_FRAMES; i++) {
          transport.write(transport.alloc().buffer(BLOB_FRAME).writeZero(BLOB_FRAME));
        }
      }
      transport.write(transport.alloc().buffer(20).writeMedium(17).writeZero(17));
      transport.flush();
      frames.incrementAndGet();
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

  /**
   * Of the channel's flushed, untaken messages: [count, readable bytes, capacity, count of small
   * ones (under 256 bytes), capacity the small ones do not use]. The first is left out of the small
   * ones: the socket may have taken part of it (a record of the blob), leaving any few bytes.
   */
  static long[] held(Channel ch) throws Exception {
    return ch.eventLoop()
        .submit(
            () -> {
              long[] h = new long[5];
              ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
              out.forEachFlushedMessage(
                  m -> {
                    ByteBuf b = (ByteBuf) m;
                    h[0]++;
                    h[1] += b.readableBytes();
                    h[2] += b.capacity();
                    if (h[0] > 1 && b.readableBytes() < 256) {
                      h[3]++;
                      h[4] += b.capacity() - b.readableBytes();
                    }
                    return true;
                  });
              return h;
            })
        .get(10, TimeUnit.SECONDS);
  }

  static Stream<Arguments> providersAndAllocators() {
    return Stream.of(
        Arguments.of(SslProvider.JDK, false),
        Arguments.of(SslProvider.JDK, true),
        Arguments.of(SslProvider.OPENSSL, false),
        Arguments.of(SslProvider.OPENSSL, true));
  }

  @ParameterizedTest(name = "{0}, unpooled {1}")
  @MethodSource("providersAndAllocators")
  void smallRecordsWaitingForAPeerThatReadsNothingHoldWhatTheyCount(SslProvider provider, boolean unpooled)
      throws Exception {
    CompletableFuture<SmallAnswers> server = new CompletableFuture<>();
    ServerTransport.Bound bound =
        TcpServerTransport.create("127.0.0.1", 0)
            .withSsl(Tls.server(Tls.selfSigned("localhost")).provider(provider).build())
            .bind(
                t -> {
                  if (unpooled) {
                    ((NettyDuplexTransport) t).channel().config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
                  }
                  SmallAnswers a = new SmallAnswers((NettyDuplexTransport) t);
                  t.start(a);
                  server.complete(a);
                })
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) bound.address()).getPort();
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
    try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket()) {
      s.setReceiveBufferSize(4096);
      s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      s.startHandshake();
      OutputStream out = s.getOutputStream();
      SmallAnswers answers = server.get(10, TimeUnit.SECONDS);
      // One frame at a time, each read and answered (one small flush) before the next is sent.
      for (int i = 1; i <= FRAMES; i++) {
        out.write(new byte[] {0, 0, 5, 1, 2, 3, 4, 5});
        out.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (answers.frames.get() < i && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        assertThat(answers.frames.get()).as("frames the server answered").isEqualTo(i);
      }
      long[] h = held(answers.transport.channel());
      assertThat(h[3]).as("small records waiting in the outbound buffer (%s)", java.util.Arrays.toString(h))
          .isGreaterThanOrEqualTo(FRAMES - 2);
      // Were each small record to keep the SslHandler's 16.7 KiB buffer: over 1.5 MiB unused. (The
      // blob's records, 16 KiB each, may leave a few hundred bytes of their buffers unused.)
      assertThat(h[4]).as("bytes the small records hold beyond those counted (%s)", java.util.Arrays.toString(h))
          .isLessThan(16 * 1024);
      assertThat(h[2] - h[1]).as("bytes held beyond those counted (%s)", java.util.Arrays.toString(h))
          .isLessThan(h[1] / 16);
    } finally {
      bound.close();
      if (server.isDone()) {
        server.get().transport.channel().close().await(10, TimeUnit.SECONDS);
      }
    }
  }
}
