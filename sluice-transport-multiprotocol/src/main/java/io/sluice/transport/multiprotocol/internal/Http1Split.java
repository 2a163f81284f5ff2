package io.sluice.transport.multiprotocol.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import io.sluice.transport.grpc.internal.web.Http1Handler;
import io.sluice.transport.grpc.internal.web.WebRoute;

/**
 * An HTTP/1.x connection's first request decides who serves the connection: gRPC-Web, HTTP/JSON
 * and CORS preflights ({@link Http1Handler#serves}), and the console's pages when it has one, go to the gRPC server's HTTP/1.1 handler,
 * anything else to the WebSocket upgrade handling (404 or 426 for what is not an upgrade). Sits
 * right behind the request decoder, and leaves once it has chosen; until then the detection
 * deadline runs. Runs on the connection's event loop; autoRead is off.
 */
final class Http1Split extends ChannelInboundHandlerAdapter {
  private final Routes routes;
  private final DetectionDeadline deadline;
  private final WebRoute web;
  private boolean chosen;

  Http1Split(Routes routes, DetectionDeadline deadline, WebRoute web) {
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
    if (Http1Handler.serves(req) || (web != null && web.servesConsole(req.uri()))) {
      Http1Handler.takeOver(ctx, web, req);
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
