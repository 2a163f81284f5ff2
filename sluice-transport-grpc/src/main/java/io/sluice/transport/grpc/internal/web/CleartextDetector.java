package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells a cleartext connection's protocol from its first bytes, without consuming them: the
 * HTTP/2 client preface ({@code PRI * HTTP/2.0...}, 24 bytes) means HTTP/2 with prior knowledge,
 * anything else HTTP/1.x. Decides within those 24 bytes (at the first byte that differs from the
 * preface), then installs that protocol's handlers behind itself and leaves, handing them what it
 * read. A connection that sends too few bytes is ended by the server's preface timeout.
 */
public final class CleartextDetector extends ByteToMessageDecoder {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final Consumer<ChannelHandlerContext> http2;
  private final Consumer<ChannelHandlerContext> http1;

  /** {@code http2} and {@code http1} add their protocol's handlers at the end of the pipeline. */
  public CleartextDetector(Consumer<ChannelHandlerContext> http2, Consumer<ChannelHandlerContext> http1) {
    this.http2 = http2;
    this.http1 = http1;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int n = Math.min(in.readableBytes(), PREFACE.length);
    boolean matches = true;
    for (int i = 0; i < n && matches; i++) {
      matches = in.getByte(in.readerIndex() + i) == PREFACE[i];
    }
    if (matches && n < PREFACE.length) {
      return; // undecided: wait for more
    }
    if (matches) {
      http2.accept(ctx);
    } else {
      http1.accept(ctx);
    }
    ctx.pipeline().remove(this);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
