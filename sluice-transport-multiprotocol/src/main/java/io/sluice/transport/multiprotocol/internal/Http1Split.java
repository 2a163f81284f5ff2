package io.sluice.transport.multiprotocol.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import io.sluice.transport.http2.HttpRoutes;

/**
 * An HTTP/1.x connection's first request decides who serves the connection: what the server's
 * other routes serve ({@link HttpRoutes#servesHttp1}: gRPC-Web, HTTP/JSON, CORS preflights and the
 * console when they are gRPC's) goes to them, anything else to the WebSocket upgrade handling (404
 * or 426 for what is not an upgrade). The other routes keep a kept-alive connection only while its
 * requests are theirs: the first that is not (a WebSocket upgrade after the console's page, say)
 * they hand back to the WebSocket upgrade handling. Sits right behind the request decoder, and
 * leaves once it has chosen; until then the detection deadline runs. Runs on the connection's
 * event loop; autoRead is off.
 */
final class Http1Split extends ChannelInboundHandlerAdapter {
  private final Routes routes;
  private final DetectionDeadline deadline;
  private final HttpRoutes web;
  private boolean chosen;

  Http1Split(Routes routes, DetectionDeadline deadline, HttpRoutes web) {
    this.routes = routes;
    this.deadline = deadline;
    this.web = web;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (chosen || !(msg instanceof HttpRequest req)) {
      ReferenceCountUtil.release(msg); // nothing comes before a request's head
      return;
    }
    chosen = true;
    deadline.settle(); // the chosen handler's own timeouts take over
    // The chosen handlers go in behind this one, get the request from it, and then it leaves.
    if (web.servesHttp1(req)) {
      web.takeOverHttp1(ctx, req, routes::webSocketUpgrade); // a later request of another kind comes back
    } else {
      routes.webSocketUpgrade(ctx);
      ctx.fireChannelRead(req);
    }
    ctx.pipeline().remove(this);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!chosen) {
      ctx.read(); // the request's head is not complete yet
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
