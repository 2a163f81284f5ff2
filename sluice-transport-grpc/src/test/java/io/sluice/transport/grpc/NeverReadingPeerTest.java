package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.sluice.transport.grpc.internal.web.WebRoute;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.internal.Http2Options;
import io.sluice.transport.http2.internal.HttpServerConnections;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A peer that sends requests as fast as it can and never reads their answers, over loopback,
 * against the gRPC server's connection setup on a socket with a small send buffer (so the answers
 * it cannot send pile up in the channel soon, not in the kernel's buffer of up to 4 MiB): the
 * server must stop reading once its output is over the high water mark, not read and answer every
 * request into the channel's buffer until the write-stall timeout (30 s) cuts the connection. It
 * used to, for pipelined HTTP/1.1 requests (gRPC-Web, HTTP/JSON): nothing else bounds them.
 */
class NeverReadingPeerTest {
  /** The flood's bound: far more than a server that stops reading gets. */
  private static final Duration FLOOD = Duration.ofSeconds(20);
  /** No byte read by the server for this long: it stopped reading. */
  private static final Duration HELD = Duration.ofSeconds(2);
  /**
   * Far more than a held flood gets read (until about 64 KiB of answers wait), far less than 20 s
   * of reading: the flood ends here too.
   */
  private static final long MAX_READ = 4L << 20;

  @Test
  void pipelinedHttp1RequestsAreNotReadWhileTheirAnswersCannotGoOut() throws Exception {
    // Each answered at once (415, the connection kept): the next is read once the answer is written.
    byte[] request = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII);
    flood(round -> RawH2Peer.repeat(100, i -> request), null);
  }

  /**
   * Floods {@code batches} (after {@code first}, if any) from a peer that never reads, and checks
   * the server stopped reading them (neither cut nor still reading).
   */
  private void flood(RawH2Peer.BatchSource batches, byte[] first) throws Exception {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server = GrpcServer.create("127.0.0.1", 0).withServices(services);
    AtomicLong read = new AtomicLong();
    AtomicReference<Channel> accepted = new AtomicReference<>();
    var setup = server.childSetup(
        new WebRoute(services),
        Http2Options.limits(GrpcServer.DEFAULT_MAX_CONCURRENT_STREAMS, Http2Options.DEFAULT_STREAM_WINDOW,
            Http2Options.DEFAULT_MAX_HEADER_LIST, false),
        new HttpServerConnections(c -> true));
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      Channel listener = new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .childOption(ChannelOption.SO_SNDBUF, 8 * 1024)
          .childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
              accepted.set(ch);
              setup.init(ch);
              ch.pipeline().addFirst(new ChannelInboundHandlerAdapter() { // counts what the server reads
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  read.addAndGet(((ByteBuf) msg).readableBytes());
                  ctx.fireChannelRead(msg);
                }
              });
            }
          })
          .bind("127.0.0.1", 0).sync().channel();
      int port = ((InetSocketAddress) listener.localAddress()).getPort();
      try (RawH2Peer p = RawH2Peer.connect(port, 8 * 1024)) {
        if (first != null) {
          p.send(first);
        }
        long[] last = {-1, System.nanoTime()};
        p.flood(FLOOD, false, batches,
            q -> {
              long n = read.get();
              if (n != last[0]) {
                last[0] = n;
                last[1] = System.nanoTime();
              }
              return n > MAX_READ || System.nanoTime() - last[1] > HELD.toNanos();
            });
        long n = read.get();
        Channel ch = accepted.get();
        if (p.writeFailed) {
          p.readAvailable();
        }
        assertThat(p.writeFailed).as("not cut (the write-stall timeout is 30 s): read %s, GOAWAY %s", n, p.goAway).isFalse();
        assertThat(n).as("bytes of calls the server read before it stopped").isLessThan(MAX_READ);
        assertThat(System.nanoTime() - last[1]).as("the server stopped reading").isGreaterThan(HELD.toNanos());
        assertThat(ch.isWritable()).as("its answers still cannot go out").isFalse();
        assertThat(ch.config().isAutoRead()).as("reads paused while they cannot").isFalse();
      } finally {
        Channel child = accepted.get();
        if (child != null) {
          child.close().sync(); // what it still holds is released
        }
        listener.close().sync();
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
