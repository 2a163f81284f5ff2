package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SmallWrites}' spare gathering buffer on a real loopback connection and event loop (netty's
 * default allocator, a thread that releases its fast thread-locals): a buffer the socket took
 * within its flush is the next flush's, and one the socket has not taken is never reused, so the
 * bytes on the wire stay those written.
 */
class SmallWritesSpareTest {
  private static final long WAIT = 60; // seconds; a hang guard only

  private EventLoopGroup group;
  private Channel server;
  private Channel client;
  /** Every buffer handed to the client's socket, in order. */
  private final List<ByteBuf> handed = new ArrayList<>();
  /** What the server read, once it reads. */
  private final ByteArrayOutputStream received = new ByteArrayOutputStream();
  /** The server's side of the connection. */
  private final CompletableFuture<Channel> accepted = new CompletableFuture<>();

  @BeforeEach
  void loop() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.close().sync();
    }
    if (server != null) {
      server.close().sync();
    }
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  /** A client writing through a {@link SmallWrites} to a server that reads only if {@code reads}. */
  private void open(boolean reads) throws Exception {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, reads)
            .childOption(ChannelOption.SO_RCVBUF, 4096)
            .childHandler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel());
                  }

                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf b = (ByteBuf) msg;
                    byte[] bytes = new byte[b.readableBytes()];
                    b.readBytes(bytes);
                    b.release();
                    synchronized (received) {
                      received.writeBytes(bytes);
                    }
                  }
                })
            .bind(InetAddress.getLoopbackAddress(), 0)
            .sync()
            .channel();
    client =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.SO_SNDBUF, 4096)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel c) {
                    c.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                      @Override
                      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                        handed.add((ByteBuf) msg);
                        ctx.write(msg, promise);
                      }
                    });
                    c.pipeline().addLast(new SmallWrites());
                  }
                })
            .connect(server.localAddress())
            .sync()
            .channel();
  }

  private static ByteBuf bytes(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return Unpooled.wrappedBuffer(b);
  }

  @Test
  void aBufferTheSocketTookIsTheNextFlushsBuffer() throws Exception {
    open(true);
    Object[] seen =
        client.eventLoop().submit(() -> {
          client.writeAndFlush(bytes(17, 'a'));
          ByteBuf first = handed.get(handed.size() - 1);
          ByteBuf spare = SmallWrites.SPARE.get();
          client.writeAndFlush(bytes(17, 'b'));
          return new Object[] {first, spare, handed.get(handed.size() - 1), SmallWrites.SPARE.get()};
        }).get(WAIT, TimeUnit.SECONDS);
    assertThat(seen[1]).as("the thread's spare after the first flush").isSameAs(seen[0]);
    assertThat(seen[2]).as("the second flush's buffer").isSameAs(seen[0]);
    assertThat(seen[3]).as("the thread's spare after the second flush").isSameAs(seen[0]);
    awaitReceived(34);
    assertThat(receivedBytes()).isEqualTo(concat(repeat(17, 'a'), repeat(17, 'b')));
  }

  @Test
  void aBufferTheSocketHasNotTakenIsNeverReusedAndTheWireKeepsWhatWasWritten() throws Exception {
    open(false);
    int half = SmallWrites.SMALL - 48; // two of them: more than a quarter chunk, so not copied
    Object[] seen =
        client.eventLoop().submit(() -> {
          ChannelOutboundBuffer out = client.unsafe().outboundBuffer();
          long filler = 0;
          for (int i = 0; i < 10_000 && out.isEmpty(); i++) { // until the socket takes no more
            client.writeAndFlush(bytes(64 * 1024, 'z'));
            filler += 64 * 1024;
          }
          if (out.isEmpty()) {
            return new Object[] {"the socket never filled up"};
          }
          client.write(bytes(half, 'a'));
          client.writeAndFlush(bytes(half, 'b'));
          ByteBuf queued = handed.get(handed.size() - 1);
          ByteBuf spare = SmallWrites.SPARE.get();
          client.write(bytes(half, 'c'));
          client.writeAndFlush(bytes(half, 'd'));
          ByteBuf next = handed.get(handed.size() - 1);
          return new Object[] {filler, queued, spare, next};
        }).get(WAIT, TimeUnit.SECONDS);
    assertThat(seen[0]).as("filler bytes written").isInstanceOf(Long.class);
    assertThat(seen[2]).as("the thread's spare while the gathered buffer waits").isNotSameAs(seen[1]);
    assertThat(seen[3]).as("the next flush's buffer").isNotSameAs(seen[1]);
    long filler = (Long) seen[0];
    readAll();
    awaitReceived(filler + 4L * half);
    byte[] got = receivedBytes();
    byte[] tail = Arrays.copyOfRange(got, (int) filler, got.length);
    assertThat(tail)
        .as("the gathered bytes as written, after %d filler bytes", filler)
        .isEqualTo(concat(repeat(half, 'a'), repeat(half, 'b'), repeat(half, 'c'), repeat(half, 'd')));
  }

  /** Lets the server's accepted connection read. */
  private void readAll() throws Exception {
    Channel c = accepted.get(WAIT, TimeUnit.SECONDS);
    c.eventLoop().submit(() -> c.config().setAutoRead(true)).get(WAIT, TimeUnit.SECONDS);
  }

  private void awaitReceived(long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
    while (receivedLength() < n && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(receivedLength()).as("bytes the server read").isEqualTo(n);
  }

  private long receivedLength() {
    synchronized (received) {
      return received.size();
    }
  }

  private byte[] receivedBytes() {
    synchronized (received) {
      return received.toByteArray();
    }
  }

  private static byte[] repeat(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
