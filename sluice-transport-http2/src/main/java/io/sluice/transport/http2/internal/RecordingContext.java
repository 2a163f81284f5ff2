package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.channel.ChannelPromise;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import java.net.SocketAddress;

/**
 * A handler's context as netty's frame writer is given it by {@link AnswerBlocks}: every call goes
 * to the handler's own context, and while {@link #start recording} the bytes of each buffer
 * written are also copied, up to a bound (a longer write marks the record {@link #overflowed}).
 * The copy is taken before the write, which may release the buffer. One per connection, on its
 * event loop.
 */
final class RecordingContext implements ChannelHandlerContext {
  private final ChannelHandlerContext ctx;
  private final ByteBuf recorded;
  private boolean recording;
  private boolean overflowed;

  RecordingContext(ChannelHandlerContext ctx, ByteBuf into) {
    this.ctx = ctx;
    this.recorded = into;
  }

  ChannelHandlerContext delegate() {
    return ctx;
  }

  void start() {
    recorded.clear();
    overflowed = false;
    recording = true;
  }

  /** Ends recording: the bytes written since {@link #start}, or null if they did not fit. */
  ByteBuf stop() {
    recording = false;
    return overflowed ? null : recorded;
  }

  private void record(Object msg) {
    if (recording && msg instanceof ByteBuf buf) {
      int n = buf.readableBytes();
      if (recorded.writableBytes() >= n) {
        recorded.writeBytes(buf, buf.readerIndex(), n);
      } else {
        overflowed = true;
      }
    }
  }

  @Override
  public ChannelFuture write(Object msg, ChannelPromise promise) {
    record(msg);
    return ctx.write(msg, promise);
  }

  @Override
  public ChannelFuture writeAndFlush(Object msg, ChannelPromise promise) {
    record(msg);
    return ctx.writeAndFlush(msg, promise);
  }

  @Override
  public ChannelFuture write(Object msg) {
    return write(msg, ctx.newPromise());
  }

  @Override
  public ChannelFuture writeAndFlush(Object msg) {
    return writeAndFlush(msg, ctx.newPromise());
  }

  // What follows only passes through.

  @Override
  public Channel channel() {
    return ctx.channel();
  }

  @Override
  public EventExecutor executor() {
    return ctx.executor();
  }

  @Override
  public String name() {
    return ctx.name();
  }

  @Override
  public ChannelHandler handler() {
    return ctx.handler();
  }

  @Override
  public boolean isRemoved() {
    return ctx.isRemoved();
  }

  @Override
  public ChannelHandlerContext fireChannelRegistered() {
    ctx.fireChannelRegistered();
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelUnregistered() {
    ctx.fireChannelUnregistered();
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelActive() {
    ctx.fireChannelActive();
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelInactive() {
    ctx.fireChannelInactive();
    return this;
  }

  @Override
  public ChannelHandlerContext fireExceptionCaught(Throwable cause) {
    ctx.fireExceptionCaught(cause);
    return this;
  }

  @Override
  public ChannelHandlerContext fireUserEventTriggered(Object evt) {
    ctx.fireUserEventTriggered(evt);
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelRead(Object msg) {
    ctx.fireChannelRead(msg);
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelReadComplete() {
    ctx.fireChannelReadComplete();
    return this;
  }

  @Override
  public ChannelHandlerContext fireChannelWritabilityChanged() {
    ctx.fireChannelWritabilityChanged();
    return this;
  }

  @Override
  public ChannelHandlerContext read() {
    ctx.read();
    return this;
  }

  @Override
  public ChannelHandlerContext flush() {
    ctx.flush();
    return this;
  }

  @Override
  public ChannelPipeline pipeline() {
    return ctx.pipeline();
  }

  @Override
  public ByteBufAllocator alloc() {
    return ctx.alloc();
  }

  @Override
  public <T> Attribute<T> attr(AttributeKey<T> key) {
    return ctx.attr(key);
  }

  @Override
  public <T> boolean hasAttr(AttributeKey<T> key) {
    return ctx.hasAttr(key);
  }

  @Override
  public ChannelFuture bind(SocketAddress localAddress, ChannelPromise promise) {
    return ctx.bind(localAddress, promise);
  }

  @Override
  public ChannelFuture connect(SocketAddress remoteAddress, ChannelPromise promise) {
    return ctx.connect(remoteAddress, promise);
  }

  @Override
  public ChannelFuture connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
    return ctx.connect(remoteAddress, localAddress, promise);
  }

  @Override
  public ChannelFuture disconnect(ChannelPromise promise) {
    return ctx.disconnect(promise);
  }

  @Override
  public ChannelFuture close(ChannelPromise promise) {
    return ctx.close(promise);
  }

  @Override
  public ChannelFuture deregister(ChannelPromise promise) {
    return ctx.deregister(promise);
  }

  @Override
  public ChannelPromise newPromise() {
    return ctx.newPromise();
  }

  @Override
  public ChannelProgressivePromise newProgressivePromise() {
    return ctx.newProgressivePromise();
  }

  @Override
  public ChannelFuture newSucceededFuture() {
    return ctx.newSucceededFuture();
  }

  @Override
  public ChannelFuture newFailedFuture(Throwable cause) {
    return ctx.newFailedFuture(cause);
  }

  @Override
  public ChannelPromise voidPromise() {
    return ctx.voidPromise();
  }
}
