package io.sluice.transport.http2.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A hand-driven HTTP/2 client for protocol tests: sends the request headers and DATA a test
 * chooses and records what comes back on the stream (response headers, DATA, how it ended).
 */
public final class RawH2Client implements AutoCloseable {
  private static final long WAIT_SECONDS = 20; // hang guard only

  public final CompletableFuture<Http2Settings> settings = new CompletableFuture<>();
  private final Channel channel;
  private final H2Handler h2;

  /** What one stream got back. */
  public static final class Response implements H2Handler.StreamSink {
    public final CompletableFuture<Http2Headers> headers = new CompletableFuture<>();
    /** Completes with every DATA byte received once the stream has closed. */
    public final CompletableFuture<byte[]> closed = new CompletableFuture<>();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    public volatile boolean endStream;
    public volatile long resetCode = -1;
    volatile int id;

    @Override
    public void onHeaders(Http2Stream stream, Http2Headers h, boolean end) {
      headers.complete(h);
      endStream |= end;
    }

    @Override
    public int onData(Http2Stream stream, ByteBuf d, int padding, boolean end) {
      byte[] b = new byte[d.readableBytes()];
      d.getBytes(d.readerIndex(), b);
      data.writeBytes(b);
      endStream |= end;
      return d.readableBytes() + padding;
    }

    @Override
    public void onReset(Http2Stream stream, long errorCode) {
      resetCode = errorCode;
    }

    @Override
    public void onClosed(Http2Stream stream) {
      headers.completeExceptionally(new IllegalStateException("closed without headers, reset " + resetCode));
      closed.complete(data.toByteArray());
    }
  }

  private RawH2Client(Channel channel, H2Handler h2) {
    this.channel = channel;
    this.h2 = h2;
  }

  public static RawH2Client connect(int port) throws Exception {
    EventLoopGroup loops = EventLoops.shared();
    H2Handler h2 = H2Handler.build(false, new H2Handler.Limits(0, 1 << 20, 4 << 20, 8192, 16384, false), null);
    RawH2Client[] self = new RawH2Client[1];
    CompletableFuture<Http2Settings> settings = new CompletableFuture<>();
    h2.addListener(
        new H2Handler.ConnectionListener() {
          @Override
          public void onSettings(Http2Settings s) {
            settings.complete(s);
          }
        });
    Channel ch =
        new Bootstrap()
            .group(loops)
            .channel(EventLoops.socketChannel(EventLoops.modeOf(loops)))
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel c) {
                    c.pipeline().addLast(h2);
                  }
                })
            .connect(new InetSocketAddress("127.0.0.1", port))
            .sync()
            .channel();
    self[0] = new RawH2Client(ch, h2);
    settings.whenComplete((s, e) -> self[0].settings.complete(s));
    return self[0];
  }

  /** Opens a stream with {@code headers}. */
  public Response request(Http2Headers headers, boolean endStream) throws Exception {
    Response r = new Response();
    channel
        .eventLoop()
        .submit(
            () -> {
              int id = h2.connection().local().incrementAndGetNextStreamId();
              r.id = id;
              h2.encoder().writeHeaders(h2.ctx(), id, headers, 0, endStream, h2.newPromise());
              h2.attach(h2.connection().stream(id), r);
              h2.flushNow();
              return null;
            })
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
    return r;
  }

  /** Sends {@code bytes} as DATA on {@code r}'s stream. */
  public void data(Response r, byte[] bytes, boolean endStream) throws Exception {
    channel
        .eventLoop()
        .submit(
            () -> {
              h2.encoder()
                  .writeData(h2.ctx(), r.id, Unpooled.wrappedBuffer(bytes), 0, endStream, h2.newPromise());
              h2.flushNow();
              return null;
            })
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    channel.close().sync();
  }
}
