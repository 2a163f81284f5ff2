package io.sluice.transport.http2;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A plain netty HTTP/2 peer for wire tests: it records what arrives (headers, DATA bytes as hex,
 * resets, GOAWAY) and sends what a test tells it, with no RSocket in it.
 */
final class RawH2 implements AutoCloseable {
  /** One thing that arrived on the wire. */
  record Event(String kind, int streamId, Http2Headers headers, String hex, boolean endStream, long code) {
    @Override
    public String toString() {
      return kind + "(" + streamId + (headers != null ? ", " + headers : "") + (hex != null ? ", " + hex : "")
          + (endStream ? ", END_STREAM" : "") + (kind.equals("RST") || kind.equals("GOAWAY") ? ", code " + code : "") + ")";
    }
  }

  final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final CompletableFuture<Channel> connection = new CompletableFuture<>();
  private Channel listener;

  private Http2ConnectionHandler handler(boolean server) {
    return new Http2ConnectionHandlerBuilder()
        .server(server)
        .frameListener(
            new Http2FrameAdapter() {
              @Override
              public int onDataRead(
                  ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
                events.add(new Event("DATA", streamId, null, ByteBufUtil.hexDump(data), endOfStream, 0));
                return data.readableBytes() + padding;
              }

              @Override
              public void onHeadersRead(
                  ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endStream) {
                events.add(new Event("HEADERS", streamId, headers, null, endStream, 0));
              }

              @Override
              public void onHeadersRead(
                  ChannelHandlerContext ctx,
                  int streamId,
                  Http2Headers headers,
                  int streamDependency,
                  short weight,
                  boolean exclusive,
                  int padding,
                  boolean endStream) {
                onHeadersRead(ctx, streamId, headers, padding, endStream);
              }

              @Override
              public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int increment) {
                events.add(new Event("WINDOW_UPDATE", streamId, null, null, false, increment));
              }

              @Override
              public void onPingAckRead(ChannelHandlerContext ctx, long data) {
                events.add(new Event("PING_ACK", 0, null, null, false, data));
              }

              @Override
              public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
                events.add(new Event("RST", streamId, null, null, false, errorCode));
              }

              @Override
              public void onGoAwayRead(
                  ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
                events.add(
                    new Event(
                        "GOAWAY", lastStreamId, null, debugData.toString(java.nio.charset.StandardCharsets.UTF_8),
                        false, errorCode));
              }
            })
        .build();
  }

  /** A server on 127.0.0.1; its first connection is the one the test talks to. */
  static RawH2 server() throws Exception {
    RawH2 raw = new RawH2();
    raw.listener =
        new ServerBootstrap()
            .group(raw.group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(raw.handler(true));
                    raw.connection.complete(ch);
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
    return raw;
  }

  /** A client connected to {@code port} on 127.0.0.1 (h2c, prior knowledge). */
  static RawH2 client(int port) throws Exception {
    RawH2 raw = new RawH2();
    Channel ch =
        new Bootstrap()
            .group(raw.group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(raw.handler(false));
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
    raw.connection.complete(ch);
    return raw;
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** The next event but WINDOW_UPDATE (flow control, which {@link #untilPingAck} shows), waiting up to 20 s. */
  Event next() throws InterruptedException {
    while (true) {
      Event e = anyNext();
      if (!e.kind().equals("WINDOW_UPDATE")) {
        return e;
      }
    }
  }

  private Event anyNext() throws InterruptedException {
    Event e = events.poll(20, TimeUnit.SECONDS);
    if (e == null) {
      throw new AssertionError("nothing arrived within 20 s");
    }
    return e;
  }

  void headers(int streamId, Http2Headers headers, boolean endStream) throws Exception {
    run(
        (h, ctx) -> {
          h.encoder().writeHeaders(ctx, streamId, headers, 0, endStream, ctx.newPromise());
          h.flush(ctx);
        });
  }

  void data(int streamId, String hex, boolean endStream) throws Exception {
    run(
        (h, ctx) -> {
          h.encoder()
              .writeData(ctx, streamId, Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex)), 0, endStream, ctx.newPromise());
          h.flush(ctx);
        });
  }

  void ping(long data) throws Exception {
    run(
        (h, ctx) -> {
          h.encoder().writePing(ctx, false, data, ctx.newPromise());
          h.flush(ctx);
        });
  }

  /** Waits for the ACK of PING {@code data}; returns what arrived before it. */
  java.util.List<Event> untilPingAck(long data) throws InterruptedException {
    java.util.List<Event> before = new java.util.ArrayList<>();
    while (true) {
      Event e = anyNext();
      if (e.kind().equals("PING_ACK") && e.code() == data) {
        return before;
      }
      before.add(e);
    }
  }

  void reset(int streamId, long code) throws Exception {
    run(
        (h, ctx) -> {
          h.resetStream(ctx, streamId, code, ctx.newPromise());
          h.flush(ctx);
        });
  }

  private interface Action {
    void run(Http2ConnectionHandler h, ChannelHandlerContext ctx);
  }

  private void run(Action a) throws Exception {
    Channel ch = connection.get(20, TimeUnit.SECONDS);
    Http2ConnectionHandler h = ch.pipeline().get(Http2ConnectionHandler.class);
    ChannelHandlerContext ctx = ch.pipeline().context(h);
    ch.eventLoop().submit(() -> a.run(h, ctx)).get(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    if (connection.isDone()) {
      connection.get().close().sync();
    }
    if (listener != null) {
      listener.close().sync();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }
}
