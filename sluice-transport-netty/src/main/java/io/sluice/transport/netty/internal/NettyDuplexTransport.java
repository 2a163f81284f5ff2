package io.sluice.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.FrameTooLargeException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A byte-stream connection (TCP, optionally TLS) as a {@link DuplexTransport}: the last handler of
 * the pipeline. Inbound, it splits the stream at u24 length prefixes and hands each frame to the
 * engine directly, without a pipeline hop per frame; the length is checked against the limit
 * before any of the frame is buffered. Outbound, the engine's batch buffers are written as they
 * are. Everything runs on the channel's event loop.
 *
 * <p>Closing is a lingering close, as HTTP servers do it: the last output (typically an ERROR
 * frame) is flushed, then only our direction is shut down (FIN), and input is read and discarded
 * until the peer closes too or {@link #LINGER_MILLIS} pass. Closing the socket at once while the
 * peer is still sending would make the kernel answer with a reset, which discards our unsent
 * output and, at the peer, what it had not read yet: a peer cut off for flooding would never
 * learn why. What is read and discarded is bounded too ({@link #LINGER_MAX_BYTES}): past it,
 * reading stops (the peer's sends then wait on TCP flow control, costing us nothing) until the
 * time runs out, so a flooding peer cannot keep a core busy discarding what it sends. The receiver is told {@link FrameReceiver#onClosed()} at once; no frame reaches it
 * after {@link #close()}.
 */
public final class NettyDuplexTransport extends ByteToMessageDecoder implements DuplexTransport {
  private static final int LENGTH_SIZE = 3;
  /** Longest a closing connection waits for its last output to drain and for the peer's FIN. */
  static final long LINGER_MILLIS = 2000;
  /**
   * Most bytes a closing connection reads (and discards) from the peer: enough for an honest
   * peer's frames in flight, far less than a flood pushes through loopback in {@link
   * #LINGER_MILLIS} (gigabytes).
   */
  static final int LINGER_MAX_BYTES = 8 << 20;

  private final Channel channel;
  private ChannelHandlerContext ctx;
  private FrameReceiver receiver;
  private int maxFrameSize;
  private boolean failed;
  /** {@link #close()} was called: the receiver is gone and input is discarded. */
  private boolean closing;
  /** Bytes handed to the pipeline so far, for {@link #outboundProgress()}. */
  private long written;
  /** Bytes read and discarded since {@link #close()} (see {@link #LINGER_MAX_BYTES}). */
  private long discardedWhileClosing;

  public NettyDuplexTransport(Channel channel) {
    this.channel = channel;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
  }

  @Override
  public Framing framing() {
    return Framing.LENGTH_PREFIXED;
  }

  /** The connection's channel, for tests. */
  Channel channel() {
    return channel;
  }

  @Override
  public EventExecutor executor() {
    return channel.eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
    this.maxFrameSize = receiver.maxFrameSize();
    int high = receiver.maxQueuedOutboundBytes();
    channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(high / 2, high));
    if (!channel.isActive()) {
      receiver.onClosed();
      return;
    }
    if (actualReadableBytes() > 0) {
      // Bytes read before the start (a server that looked at the first bytes to pick this
      // transport, say) wait in the cumulation: decode them on the next loop turn, not from
      // inside start, which the receiver is still in.
      channel.eventLoop().execute(this::decodeBuffered);
    }
    channel.config().setAutoRead(true);
  }

  private void decodeBuffered() {
    if (receiver != null && !ctx.isRemoved() && actualReadableBytes() > 0) {
      try {
        channelRead(ctx, ctx.alloc().buffer(0)); // decodes the cumulation
      } catch (Exception e) {
        exceptionCaught(ctx, e);
        return;
      }
      channelReadComplete(ctx);
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    FrameReceiver r = receiver;
    while (!failed && !closing && r != null && in.readableBytes() >= LENGTH_SIZE) {
      int start = in.readerIndex();
      int length = in.getUnsignedMedium(start);
      if (length > maxFrameSize) {
        failed = true;
        in.skipBytes(in.readableBytes());
        r.onTransportError(new FrameTooLargeException(length, maxFrameSize));
        return;
      }
      if (in.readableBytes() < LENGTH_SIZE + length) {
        return;
      }
      // The frame is lent as the cumulation itself, narrowed to the frame's bytes, instead of as a
      // new slice: one object less per inbound frame. The receiver only reads it and retains
      // slices of it (FrameReceiver#onFrame), so restoring the indexes afterwards is safe.
      int end = start + LENGTH_SIZE + length;
      int writerIndex = in.writerIndex();
      in.setIndex(start + LENGTH_SIZE, end);
      try {
        r.onFrame(in);
      } finally {
        in.setIndex(end, writerIndex);
      }
      if (closing || !channel.isActive()) {
        discard(in);
        return;
      }
    }
    if (failed || closing) {
      discard(in);
    }
  }

  private void discard(ByteBuf in) {
    int n = in.readableBytes();
    in.skipBytes(n);
    if (closing) {
      discardedWhileClosing += n;
      if (discardedWhileClosing > LINGER_MAX_BYTES && channel.config().isAutoRead()) {
        // Enough: a peer still sending this much after our close is not listening. Stop reading;
        // the lingering close's timer ends the connection.
        channel.config().setAutoRead(false);
      }
    }
  }

  /** Bytes read and discarded since the close, for tests. Call on the channel's event loop. */
  long discardedWhileClosing() {
    return discardedWhileClosing;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // Not super.channelReadComplete: it would call read() while autoRead is off (we never emit
    // messages down the pipeline), which would undo the back-pressure of setReadEnabled(false).
    discardSomeReadBytes();
    if (receiver != null) {
      receiver.onReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (receiver != null) {
      receiver.onWritabilityChanged(channel.isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    super.channelInactive(ctx);
    FrameReceiver r = detachReceiver(); // also if close() is called later
    if (r != null) {
      r.onClosed();
    }
  }

  /** Ends delivery: no callback reaches the receiver after this; returns it (null if gone). */
  private FrameReceiver detachReceiver() {
    FrameReceiver r = receiver;
    receiver = null;
    closing = true;
    return r;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (receiver != null && channel.isActive()) {
      receiver.onTransportError(cause);
    } else {
      ctx.close();
    }
  }

  @Override
  public void write(ByteBuf buf) {
    written += buf.readableBytes();
    ctx.write(buf, ctx.voidPromise());
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable();
  }

  @Override
  public long outboundProgress() {
    return OutboundProgress.of(channel, written);
  }

  @Override
  public long unsentBytes() {
    io.netty.channel.ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    channel.config().setAutoRead(enabled);
  }

  @Override
  public void close() {
    if (closing) {
      return;
    }
    FrameReceiver r = detachReceiver();
    if (channel instanceof DuplexChannel && channel.isActive() && channel.pipeline().get(SslHandler.class) == null) {
      linger((DuplexChannel) channel);
    } else {
      // TLS ends with its own close_notify exchange (SslHandler's close); others just close.
      ctx.flush();
      ctx.close();
    }
    if (r != null) {
      r.onClosed();
    }
  }

  /** Flush, then FIN once the output has drained, then read and discard until EOF or the guard. */
  private void linger(DuplexChannel ch) {
    ScheduledFuture<?> guard = ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
    ch.closeFuture().addListener(f -> guard.cancel(false));
    // Completes when everything written before it has gone to the socket.
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER)
        .addListener(
            f -> {
              if (f.isSuccess() && ch.isActive()) {
                ch.shutdownOutput(); // the peer reads the rest, then EOF; its close ends ours
              } else {
                ch.close();
              }
            });
    ch.config().setAutoRead(true);
  }

  @Override
  public String name() {
    return channel instanceof io.netty.channel.socket.SocketChannel ? "tcp" : "unix";
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }
}
