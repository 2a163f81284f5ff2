package io.sluice.browserdemo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Answers the plain HTTP requests of the demo's port (the WebSocket upgrade on {@link
 * BrowserDemo#RSOCKET_PATH} never reaches it): {@code GET /} the page, {@code GET /app.js} its
 * script, {@code POST /report} the page's report (handed to a listener), 404 or 405 for anything
 * else. Every answer is {@code Cache-Control: no-store} and {@code X-Content-Type-Options: nosniff}.
 *
 * <p>Shared by every connection; runs on each connection's event loop. It releases each request
 * (the {@link FullHttpRequest} an {@code HttpObjectAggregator} before it builds, bounded by {@link
 * #MAX_REPORT_BYTES}); the responses are released by netty once written.
 */
@ChannelHandler.Sharable
final class PageHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** The largest request body taken (the report is a few hundred bytes). */
  static final int MAX_REPORT_BYTES = 16 * 1024;

  private static final String X_CONTENT_TYPE_OPTIONS = "x-content-type-options";

  private final Page page;
  private final Consumer<String> reports;

  /**
   * @param reports gets the body of each {@code POST /report}, on the connection's event loop; it
   *     must not block
   */
  PageHandler(Page page, Consumer<String> reports) {
    this.page = page;
    this.reports = reports;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    String path = new QueryStringDecoder(request.uri()).path();
    HttpMethod method = request.method();
    boolean get = method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD);
    FullHttpResponse response;
    if (!request.decoderResult().isSuccess()) {
      response = text(HttpResponseStatus.BAD_REQUEST, "bad request\n");
    } else if (path.equals("/") || path.equals("/index.html")) {
      if (!get) {
        response = notAllowed("GET, HEAD");
      } else if (page.available()) {
        response = content(page.html(), "text/html; charset=utf-8");
      } else {
        response = unavailable();
      }
    } else if (path.equals("/app.js") && page.available()) {
      response = get ? content(page.script(), "text/javascript; charset=utf-8") : notAllowed("GET, HEAD");
    } else if (path.equals("/report")) {
      if (method.equals(HttpMethod.POST)) {
        reports.accept(request.content().toString(StandardCharsets.UTF_8));
        response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
      } else {
        response = notAllowed("POST");
      }
    } else {
      response = text(HttpResponseStatus.NOT_FOUND, "not found\n");
    }
    send(ctx, request, response);
  }

  /** A read timeout (idle connection), a reset, a bad request: the connection just closes. */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
    response.headers()
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
        .set(X_CONTENT_TYPE_OPTIONS, "nosniff");
    HttpUtil.setContentLength(response, response.content().readableBytes());
    if (request.method().equals(HttpMethod.HEAD)) {
      response.content().clear();
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
    HttpUtil.setKeepAlive(response, keepAlive);
    if (keepAlive) {
      ctx.writeAndFlush(response, ctx.voidPromise());
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  private static FullHttpResponse content(byte[] bytes, String type) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    return r;
  }

  private static FullHttpResponse text(HttpResponseStatus status, String body) {
    ByteBuf b = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, b);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    return r;
  }

  private static FullHttpResponse notAllowed(String allow) {
    FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed\n");
    r.headers().set(HttpHeaderNames.ALLOW, allow);
    return r;
  }

  private static FullHttpResponse unavailable() {
    return text(HttpResponseStatus.SERVICE_UNAVAILABLE, BrowserDemo.PAGE_UNAVAILABLE + "\n");
  }
}
