package io.sluice.transport.multiprotocol.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Waits for the TLS handshake (netty's handler keeps what is decrypted before it ends), then lets
 * {@link Routes#afterTls} pick by the protocol ALPN chose: {@code h2}, {@code http/1.1}, or none
 * (the decrypted first bytes decide, as on a plain connection). A failed handshake closes the
 * connection.
 */
final class AlpnRouter extends ApplicationProtocolNegotiationHandler {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(AlpnRouter.class);

  static final String H2 = ApplicationProtocolNames.HTTP_2;
  static final String HTTP_1_1 = ApplicationProtocolNames.HTTP_1_1;
  /** What {@link #configurePipeline} is told when ALPN chose nothing. */
  private static final String NONE = "";

  private final Routes routes;
  private final DetectionDeadline deadline;

  AlpnRouter(Routes routes, DetectionDeadline deadline) {
    super(NONE);
    this.routes = routes;
    this.deadline = deadline;
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
    routes.afterTls(ctx, protocol, deadline);
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: TLS handshake failed: {}", ctx.channel(), cause.toString());
    }
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: closing during the TLS handshake: {}", ctx.channel(), cause.toString());
    }
    ctx.close();
  }
}
