package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2FrameLogger;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.logging.LogLevel;

/**
 * Sees every frame as netty's frame writer puts it on the wire (the frame-logger hook of netty's
 * builder, the one place a builder-made handler shows the written frames; it logs nothing): a
 * HEADERS or DATA frame written tells the {@link ControlFrameBudget} that the server answers.
 * Counted when written, not when the application queues a write: one large write that flow
 * control releases over many WINDOW_UPDATEs (a Go client sends one per 4 KiB read) is one answer
 * per frame that goes out, not one for the whole write, as grpc-java resets its count in its
 * frame writer. A HEADERS or PUSH_PROMISE frame written, or the ACK of the peer's SETTINGS (which
 * applies them), also tells the connection's {@link AnswerBlocks} that the HPACK encoder's table may have changed.
 */
final class AnswerWatch extends Http2FrameLogger {
  private final ControlFrameBudget budget;
  private final AnswerBlocks blocks;

  AnswerWatch(AnswerBlocks blocks) {
    super(LogLevel.TRACE, AnswerWatch.class);
    this.blocks = blocks;
    this.budget = blocks.budget;
  }

  /** Never logs: the other frames' log methods return at once. */
  @Override
  public boolean isEnabled() {
    return false;
  }

  @Override
  public void logData(
      Direction direction, ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
      boolean endStream) {
    if (direction == Direction.OUTBOUND) {
      budget.answered();
    }
  }

  @Override
  public void logPushPromise(
      Direction direction, ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers,
      int padding) {
    if (direction == Direction.OUTBOUND) {
      blocks.changed(); // a header block too: Sluice sends none today
    }
  }

  @Override
  public void logSettingsAck(Direction direction, ChannelHandlerContext ctx) {
    if (direction == Direction.OUTBOUND) {
      blocks.changed();
    }
  }

  @Override
  public void logHeaders(
      Direction direction, ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endStream) {
    if (direction == Direction.OUTBOUND) {
      budget.answered();
      blocks.changed();
    }
  }

  @Override
  public void logHeaders(
      Direction direction, ChannelHandlerContext ctx, int streamId, Http2Headers headers,
      int streamDependency, short weight, boolean exclusive, int padding, boolean endStream) {
    if (direction == Direction.OUTBOUND) {
      budget.answered();
      blocks.changed();
    }
  }
}
