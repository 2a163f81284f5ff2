package io.sluice.transport.multiprotocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.List;

/**
 * Looks at a connection's first bytes (without consuming them, {@link FirstBytes}) and, once they
 * tell the protocol, puts that protocol's handlers behind itself and leaves the pipeline: the bytes
 * it held go on to them. Bytes that fit no protocol close the connection at once. It sits last in
 * the pipeline: first of all on a plain connection, after the TLS handler on a TLS one whose ALPN
 * chose nothing ({@code decrypted}, where TLS again is garbage).
 *
 * <p>Reads are requested one at a time (autoRead is off), so a connection that has not said what
 * it speaks holds at most one read's worth of bytes, and only until {@link FirstBytes#MAX_BYTES}
 * of them decide; the {@link DetectionDeadline} ends one that sends too little.
 */
final class ProtocolDetector extends ByteToMessageDecoder {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(ProtocolDetector.class);

  private final Routes routes;
  private final DetectionDeadline deadline;
  private final boolean decrypted;

  ProtocolDetector(Routes routes, DetectionDeadline deadline, boolean decrypted) {
    this.routes = routes;
    this.deadline = deadline;
    this.decrypted = decrypted;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    ctx.read();
    super.channelActive(ctx);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    FirstBytes.Protocol protocol = FirstBytes.detect(in, !decrypted);
    switch (protocol) {
      case UNDECIDED:
        if (in.readableBytes() >= FirstBytes.MAX_BYTES) {
          refuse(ctx, in); // cannot happen: every protocol is decided by then
        }
        return; // ByteToMessageDecoder asks for the next read (autoRead is off)
      case UNKNOWN:
        refuse(ctx, in);
        return;
      case RSOCKET:
        routes.rsocket(ctx, deadline);
        break;
      case TLS:
        routes.tls(ctx, deadline);
        break;
      case HTTP1:
        routes.http1(ctx, deadline);
        break;
      case HTTP2:
        routes.http2(ctx, deadline);
        break;
      default:
        throw new IllegalStateException(protocol.toString());
    }
    // The handlers for the protocol are behind this one now. Leaving hands them what was read
    // (ByteToMessageDecoder passes its cumulation on), after this decode returns.
    ctx.pipeline().remove(this);
  }

  private void refuse(ChannelHandlerContext ctx, ByteBuf in) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: first bytes of no protocol served here, closing", ctx.channel());
    }
    in.skipBytes(in.readableBytes());
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: closing before its protocol was known: {}", ctx.channel(), cause.toString());
    }
    ctx.close();
  }
}
