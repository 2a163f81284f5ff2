package io.sluice.transport.grpc.internal.web;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import java.util.function.Consumer;

/**
 * After a gRPC server's TLS handshake: ALPN {@code h2} gets the HTTP/2 handler, {@code http/1.1}
 * (gRPC-Web and HTTP/JSON only) the HTTP/1.1 one; with no ALPN (clients that speak HTTP/1.1 only
 * often send none) the first decrypted bytes decide ({@link CleartextDetector}); another
 * protocol is closed.
 */
public final class AlpnGrpc extends ApplicationProtocolNegotiationHandler {
  private final Consumer<ChannelHandlerContext> http2;
  private final Consumer<ChannelHandlerContext> http1;

  /** {@code http2} and {@code http1} add their protocol's handlers at the end of the pipeline. */
  public AlpnGrpc(Consumer<ChannelHandlerContext> http2, Consumer<ChannelHandlerContext> http1) {
    super("none");
    this.http2 = http2;
    this.http1 = http1;
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      http2.accept(ctx);
    } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
      http1.accept(ctx);
    } else if ("none".equals(protocol)) {
      ctx.pipeline().addLast(new CleartextDetector(http2, http1));
    } else {
      ctx.close();
    }
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
