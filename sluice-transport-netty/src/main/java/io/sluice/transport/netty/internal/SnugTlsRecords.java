package io.sluice.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandler;

/**
 * Keeps what a TLS channel holds for a peer that reads nothing near what its outbound buffer
 * counts. It sits between the channel's {@link SslHandler} and the socket ({@link #add}), so what
 * it sees are the encrypted records.
 *
 * <p>netty's {@code SslHandler} with the JDK's provider (the default where netty-tcnative is not on
 * the class path) encrypts each record into a heap buffer of the session's packet size, about
 * 16.7 KiB, however small the record. netty's socket channels copy a heap buffer written to them
 * into a direct one of its readable size, but NIO's only when the allocator pools direct buffers:
 * with an unpooled allocator ({@code -Dio.netty.allocator.type=unpooled}) each small record (a
 * PING's acknowledgement, a keepalive's answer, a few dozen bytes) that waits behind bytes a peer
 * has not read holds its whole buffer, while the outbound buffer, the channel's writability and
 * every bound on unsent bytes count only its readable bytes: a peer sending one small frame at a
 * time would make the channel hold some 400 times what it counts. So a record written while the
 * outbound buffer still holds flushed bytes the socket has not taken, using at most half its
 * buffer with at least {@link #SLACK} bytes of it unused, is copied into a buffer of its size. A
 * record written while the socket keeps up goes as it is (the socket takes it at this flush), and
 * OpenSSL sizes its records' buffers to them.
 *
 * <p>Stateless and shared; on the channel's event loop, as every outbound handler.
 */
@ChannelHandler.Sharable
public final class SnugTlsRecords extends ChannelOutboundHandlerAdapter {
  /** Unused bytes in a record's buffer below which it goes as it is. */
  static final int SLACK = 1024;

  private static final SnugTlsRecords INSTANCE = new SnugTlsRecords();

  private SnugTlsRecords() {}

  /** Adds {@code ssl} at the end of {@code pipeline}, with this handler between it and the socket. */
  public static void add(ChannelPipeline pipeline, SslHandler ssl) {
    pipeline.addLast(INSTANCE);
    pipeline.addLast(ssl);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf record) {
      int n = record.readableBytes();
      int capacity = record.capacity();
      if (capacity - n >= SLACK && n <= capacity / 2 && OutboundProgress.behind(ctx.channel())) {
        ByteBuf copy;
        try {
          copy = ctx.alloc().buffer(n, n);
        } catch (RuntimeException | OutOfMemoryError e) {
          ctx.write(record, promise); // no memory for a copy: the record goes as it is
          return;
        }
        try {
          copy.writeBytes(record, record.readerIndex(), n);
        } catch (RuntimeException e) {
          copy.release();
          throw e;
        } finally {
          record.release();
        }
        ctx.write(copy, promise);
        return;
      }
    }
    ctx.write(msg, promise);
  }
}
