package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.EventExecutor;
import java.util.Map;

/**
 * One gRPC-Web or HTTP/JSON request on an HTTP/1.1 connection: writes the response (whole with a
 * content length, or chunked for a stream; gRPC-Web's trailers are in the body, so no HTTP
 * trailers are needed) and, once it is over, has {@link Http1Handler} read the next request, or
 * closes the connection when the request's body was not read to its end or the client asked for
 * it ({@code Connection: close}, HTTP/1.0). Runs on the connection's event loop.
 */
final class H1Exchange implements WebExchange {
  private final ChannelHandlerContext ctx;
  private final Http1Handler owner;
  private final boolean keepAlive;
  private boolean requestComplete;
  private boolean done;
  private boolean flushScheduled;

  H1Exchange(ChannelHandlerContext ctx, Http1Handler owner, boolean keepAlive) {
    this.ctx = ctx;
    this.owner = owner;
    this.keepAlive = keepAlive;
  }

  /** The request's last content has been read. */
  void requestComplete() {
    requestComplete = true;
    if (done) {
      owner.exchangeOver(this, true);
    }
  }

  boolean isRequestComplete() {
    return requestComplete;
  }

  boolean isDone() {
    return done;
  }

  @Override
  public EventExecutor executor() {
    return ctx.executor();
  }

  @Override
  public Channel channel() {
    return ctx.channel();
  }

  @Override
  public ByteBufAllocator alloc() {
    return ctx.alloc();
  }

  private boolean reusable() {
    return keepAlive && requestComplete && !owner.closing();
  }

  private static void copy(Http2Headers from, HttpHeaders to) {
    for (Map.Entry<CharSequence, CharSequence> e : from) {
      if (e.getKey().length() > 0 && e.getKey().charAt(0) != ':') {
        to.add(e.getKey(), e.getValue());
      }
    }
  }

  @Override
  public void respond(int status, Http2Headers headers, ByteBuf body) {
    if (done) {
      body.release();
      return;
    }
    done = true;
    DefaultFullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), body);
    copy(headers, r.headers());
    r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    finishWith(r);
  }

  @Override
  public void startStream(int status, Http2Headers headers) {
    if (done) {
      return;
    }
    DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
    copy(headers, r.headers());
    r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    ctx.writeAndFlush(r, ctx.voidPromise());
  }

  @Override
  public void write(ByteBuf data, Runnable written) {
    if (done || !ctx.channel().isActive()) {
      data.release();
      written.run();
      return;
    }
    ChannelPromise p = ctx.newPromise();
    p.addListener(
        f -> {
          written.run();
          if (!f.isSuccess()) {
            ctx.close(); // the caller is gone: the close cancels the call
          }
        });
    ctx.write(new DefaultHttpContent(data), p);
    scheduleFlush();
  }

  /** One flush for the messages of a loop turn. */
  private void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      ctx.executor().execute(() -> {
        flushScheduled = false;
        ctx.flush();
      });
    }
  }

  @Override
  public void end() {
    if (done) {
      return;
    }
    done = true;
    finishWith(LastHttpContent.EMPTY_LAST_CONTENT);
  }

  private void finishWith(Object last) {
    if (reusable()) {
      ctx.writeAndFlush(last, ctx.voidPromise());
      owner.exchangeOver(this, true);
      return;
    }
    // The client asked to close, or the rest of the body will not be read: no further request.
    if (last instanceof DefaultFullHttpResponse r) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    ctx.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
    owner.exchangeOver(this, false);
  }

  @Override
  public void readMore() {
    if (!requestComplete) {
      ctx.read();
    }
  }
}
