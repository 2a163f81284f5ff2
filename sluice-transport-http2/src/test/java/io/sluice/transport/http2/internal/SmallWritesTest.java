package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SmallWrites} on an embedded channel: small writes leave as one buffer at the flush, in
 * order with the large ones between them, each write's promise completing with the buffer that
 * carried it (or failing with it), and nothing is held past a flush, a close or the handler's
 * removal.
 */
class SmallWritesTest {
  private final SmallWrites small = new SmallWrites();
  private EmbeddedChannel ch;

  @AfterEach
  void close() {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  /** A socket whose every write fails at once with {@code cause} (what it was given, released). */
  static ChannelOutboundHandlerAdapter failingSocket(Throwable cause) {
    return new ChannelOutboundHandlerAdapter() {
      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        io.netty.util.ReferenceCountUtil.release(msg);
        promise.tryFailure(cause);
      }
    };
  }

  /** What was written to the socket since the last call, one string per buffer (released). */
  private List<String> sent() {
    List<String> out = new ArrayList<>();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      out.add(b.toString(StandardCharsets.US_ASCII));
      b.release();
    }
    return out;
  }

  @Test
  void smallWritesLeaveAsOneBufferAtTheFlushInOrderAroundALargeOne() {
    ch = new EmbeddedChannel(small);
    ChannelPromise a = ch.newPromise();
    ChannelPromise b = ch.newPromise();
    ByteBuf first = text("ab");
    ch.write(first, a);
    ch.write(text("cd"), ch.voidPromise());
    assertThat(first.refCnt()).as("copied and released").isZero();
    assertThat(sent()).as("nothing before the flush").isEmpty();
    assertThat(a.isDone()).isFalse();
    String large = "L".repeat(SmallWrites.SMALL + 1);
    ch.write(text(large), b);
    ch.write(text("ef"));
    ch.flush();
    assertThat(sent()).containsExactly("abcd", large, "ef");
    assertThat(a.isSuccess()).isTrue();
    assertThat(b.isSuccess()).isTrue();
  }

  @Test
  void appendedBytesSitWhereTheirWriteWould() {
    ch = new EmbeddedChannel(small);
    ch.write(text("x"));
    ChannelPromise p = ch.newPromise();
    ByteBuf g = small.append(3, p);
    g.setBytes(g.writerIndex() - 3, "yyy".getBytes(StandardCharsets.US_ASCII));
    ch.write(text("z"));
    ch.flush();
    assertThat(sent()).containsExactly("xyyyz");
    assertThat(p.isSuccess()).isTrue();
  }

  @Test
  void everyPromiseOfAGatheredBufferCompletesWithIt() {
    ch = new EmbeddedChannel(small);
    List<ChannelPromise> promises = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // more than the array it starts with
      ChannelPromise p = ch.newPromise();
      promises.add(p);
      ch.write(text("w" + i), p);
    }
    ch.flush();
    assertThat(sent()).hasSize(1);
    assertThat(promises).allMatch(ChannelPromise::isSuccess);
  }

  @Test
  void aFailedGatheredWriteFailsEveryPromiseInIt() {
    RuntimeException boom = new RuntimeException("socket gone");
    ch =
        new EmbeddedChannel(
            failingSocket(boom),
            small);
    ChannelPromise a = ch.newPromise();
    ChannelPromise b = ch.newPromise();
    ch.write(text("a"), a);
    ch.write(text("b"), b);
    ch.flush();
    assertThat(a.cause()).isSameAs(boom);
    assertThat(b.cause()).isSameAs(boom);
  }

  @Test
  void anEmptyWriteRidesWithTheBytesGatheredBeforeIt() {
    ch = new EmbeddedChannel(small);
    ch.write(text("ab"));
    ChannelPromise empty = ch.newPromise();
    ch.write(Unpooled.EMPTY_BUFFER, empty); // netty's empty DATA, or its close's write after a GOAWAY
    ch.flush();
    ByteBuf out = ch.readOutbound();
    assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("ab");
    assertThat(out.capacity()).as("the chunk itself: the empty write cut no slice").isEqualTo(SmallWrites.CHUNK);
    out.release();
    assertThat((Object) ch.readOutbound()).isNull();
    assertThat(empty.isSuccess()).isTrue();
  }

  @Test
  void anEmptyWriteWithNothingGatheredGoesAsItIs() {
    ch = new EmbeddedChannel(small);
    ChannelPromise empty = ch.newPromise();
    ch.write(Unpooled.EMPTY_BUFFER, empty);
    ch.flush();
    assertThat(sent()).containsExactly("");
    assertThat(empty.isSuccess()).isTrue();
  }

  @Test
  void whatAFailedWriteWritesWhileTheHandlerGoesGoesToo() {
    RuntimeException boom = new RuntimeException("socket gone");
    ChannelOutboundHandlerAdapter above = new ChannelOutboundHandlerAdapter();
    ch =
        new EmbeddedChannel(
            failingSocket(boom),
            small,
            above);
    ChannelHandlerContext aboveCtx = ch.pipeline().context(above);
    ch.pipeline().remove(above); // as a closed channel's pipeline goes, from the top: still points here
    ChannelPromise first = ch.newPromise();
    ChannelPromise again = ch.newPromise();
    first.addListener(f -> aboveCtx.write(text("again"), again));
    aboveCtx.write(text("first"), first);
    ch.pipeline().remove(small);
    assertThat(first.cause()).isSameAs(boom);
    assertThat(again.cause()).as("gathered while the handler went, then sent").isSameAs(boom);
  }

  @Test
  void aGatheredPromiseCannotBeCancelledOutOfTheBytesItShares() {
    ch = new EmbeddedChannel(small);
    ChannelPromise p = ch.newPromise();
    ByteBuf g = small.append(3, p);
    g.setBytes(g.writerIndex() - 3, "hdr".getBytes(StandardCharsets.US_ASCII));
    ch.write(text("body"), ch.voidPromise());
    assertThat(p.cancel(false)).isFalse();
    ch.flush();
    assertThat(sent()).containsExactly("hdrbody");
    assertThat(p.isSuccess()).isTrue();
  }

  /**
   * A flush of a few bytes hands the chunk itself over while the socket keeps up (it takes the
   * chunk at once), and copies them into a buffer of their size once it holds bytes of an earlier
   * flush: a loopback connection whose server never reads, so that a peer that reads nothing does
   * not pin a chunk per flush.
   */
  @Test
  void aFewBytesFlushedBehindUntakenOnesGoInABufferOfTheirSizeElseInTheChunk() throws Exception {
    io.netty.channel.EventLoopGroup group =
        new io.netty.channel.MultiThreadIoEventLoopGroup(1, io.netty.channel.nio.NioIoHandler.newFactory());
    try {
      io.netty.channel.Channel server =
          new io.netty.bootstrap.ServerBootstrap()
              .group(group)
              .channel(io.netty.channel.socket.nio.NioServerSocketChannel.class)
              .childOption(io.netty.channel.ChannelOption.AUTO_READ, false) // never reads
              .childOption(io.netty.channel.ChannelOption.SO_RCVBUF, 4096)
              .childHandler(new io.netty.channel.ChannelInboundHandlerAdapter())
              .bind(java.net.InetAddress.getLoopbackAddress(), 0)
              .sync()
              .channel();
      List<Integer> capacities = new ArrayList<>(); // of each buffer handed to the socket
      io.netty.channel.Channel client =
          new io.netty.bootstrap.Bootstrap()
              .group(group)
              .channel(io.netty.channel.socket.nio.NioSocketChannel.class)
              .option(io.netty.channel.ChannelOption.SO_SNDBUF, 4096)
              .handler(
                  new io.netty.channel.ChannelInitializer<io.netty.channel.Channel>() {
                    @Override
                    protected void initChannel(io.netty.channel.Channel c) {
                      c.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                        @Override
                        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                          capacities.add(((ByteBuf) msg).capacity());
                          ctx.write(msg, promise);
                        }
                      });
                      c.pipeline().addLast(small);
                    }
                  })
              .connect(server.localAddress())
              .sync()
              .channel();
      try {
        String[] outcome =
            client.eventLoop().submit(() -> {
              client.writeAndFlush(text("x".repeat(17)));
              int keptUp = capacities.get(capacities.size() - 1);
              io.netty.channel.ChannelOutboundBuffer out = client.unsafe().outboundBuffer();
              for (int i = 0; i < 10_000 && out.isEmpty(); i++) { // until the socket takes no more
                client.writeAndFlush(Unpooled.wrappedBuffer(new byte[64 * 1024]));
              }
              if (out.isEmpty()) {
                return new String[] {"the socket never filled up"};
              }
              client.writeAndFlush(text("y".repeat(17)));
              return new String[] {String.valueOf(keptUp), String.valueOf(capacities.get(capacities.size() - 1))};
            }).get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(outcome).as("capacity of the 17 bytes: while the socket keeps up, behind untaken bytes")
            .containsExactly(String.valueOf(SmallWrites.CHUNK), "17");
      } finally {
        client.close().sync();
        server.close().sync();
      }
    } finally {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void moreThanAFewBytesGoInTheChunk() {
    ch = new EmbeddedChannel(small);
    String more = "y".repeat(SmallWrites.CHUNK / 4 + 1);
    ch.write(text(more.substring(0, SmallWrites.SMALL)));
    ch.write(text(more.substring(SmallWrites.SMALL)));
    ch.flush();
    ByteBuf chunk = ch.readOutbound();
    assertThat(chunk.toString(StandardCharsets.US_ASCII)).isEqualTo(more);
    assertThat(chunk.capacity()).isEqualTo(SmallWrites.CHUNK);
    chunk.release();
  }

  @Test
  void aWriteMadeWhileAFullChunkFailsToGoIsNotLost() {
    RuntimeException boom = new RuntimeException("socket gone");
    ch =
        new EmbeddedChannel(
            failingSocket(boom),
            small);
    ChannelPromise again = ch.newPromise();
    ChannelPromise first = ch.newPromise();
    first.addListener(f -> ch.write(text("again"), again)); // a listener that writes on failure
    ch.write(text("f".repeat(SmallWrites.SMALL)), first);
    for (int i = 1; i < SmallWrites.CHUNK / SmallWrites.SMALL; i++) {
      ch.write(text("f".repeat(SmallWrites.SMALL)));
    }
    ch.write(text("next")); // the chunk is full: it goes (and fails) first
    assertThat(first.cause()).isSameAs(boom);
    ch.flush();
    assertThat(again.cause()).as("the write made from the listener went too").isSameAs(boom);
  }

  @Test
  void aFullGatheringGoesOnWithoutWaitingForTheFlush() {
    ch = new EmbeddedChannel(small);
    String piece = "p".repeat(SmallWrites.SMALL);
    int fit = SmallWrites.CHUNK / SmallWrites.SMALL;
    for (int i = 0; i <= fit; i++) {
      ch.write(text(piece));
    }
    assertThat(ch.unsafe().outboundBuffer().totalPendingWriteBytes())
        .as("the full chunk went on before the flush (netty adds its entry's overhead), the rest not")
        .isBetween((long) SmallWrites.CHUNK, (long) SmallWrites.CHUNK + 256);
    ch.flush();
    List<String> out = sent();
    assertThat(out).hasSize(2);
    assertThat(out.get(0)).hasSize(SmallWrites.CHUNK);
    assertThat(out.get(1)).isEqualTo(piece);
  }

  @Test
  void closeAndRemovalSendWhatWasGathered() {
    ch = new EmbeddedChannel(small);
    ChannelPromise p = ch.newPromise();
    ch.write(text("bye"), p);
    ch.pipeline().remove(small);
    ch.flush();
    assertThat(sent()).containsExactly("bye");
    assertThat(p.isSuccess()).isTrue();

    SmallWrites other = new SmallWrites();
    ch.pipeline().addLast(other);
    ChannelPromise q = ch.newPromise();
    ch.write(text("last"), q);
    ch.close();
    // Written before the close, never flushed: failed and released by the channel, as without
    // the gathering (the leak detector would see a buffer held).
    assertThat(q.cause()).isNotNull();
  }
}
