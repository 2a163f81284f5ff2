package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ServerSide;
import org.junit.jupiter.api.Test;

/**
 * {@code unsentBytes()} of the mapping: the bytes handed to HTTP/2 that the socket has not taken
 * yet. The engine flushes part-way through a read batch only while it is 0 (the peer then waits for
 * what we have); a transport that cannot tell (-1) never gets those early flushes, and a pipelined
 * peer and this end take turns over whole batches. Answers that are HEADERS only (a stream's ERROR
 * is trailers) count too, in the unsent bytes, the writability and the progress.
 */
class StreamMappingUnsentBytesTest {
  @Test
  void countsWhatWasFlushedUntilTheSocketTookIt() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      assertThat(s.mapping.unsentBytes()).as("before any answer").isZero();
      s.requestStream(1);
      ByteBuf answer =
          Unpooled.buffer()
              .writeBytes(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, false).data("first").toBytes()))
              .writeBytes(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, false).data("second").toBytes()));
      int bytes = answer.readableBytes();
      HeldSocket socket = HeldSocket.in(s.server);

      s.mapping.write(answer);
      assertThat(s.mapping.unsentBytes()).as("written, not flushed: not sent yet").isZero();

      s.mapping.flush();
      assertThat(s.mapping.unsentBytes())
          .as("flushed, not taken: the DATA and the :status HEADERS before it")
          .isEqualTo(bytes + OutboundBytes.headers(StreamRules.RESPONSE_HEADERS));

      socket.take();
      assertThat(s.mapping.unsentBytes()).as("the socket took it").isZero();
      s.carry();
      assertThat(s.engine.errors).isEmpty();
    }
  }

  @Test
  void anErrorAnswerCountsOnceFlushedUntilTheSocketTookIt() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.requestStream(1);
      long progress = s.mapping.outboundProgress();
      HeldSocket socket = HeldSocket.in(s.server);

      s.mapping.write(error(1, "no such route"));
      assertThat(s.mapping.unsentBytes()).as("trailers written, not flushed").isZero();
      s.mapping.flush();
      assertThat(s.mapping.unsentBytes()).as("trailers flushed, not taken").isPositive();
      assertThat(s.mapping.outboundProgress()).as("nothing taken yet").isEqualTo(progress);

      socket.take();
      assertThat(s.mapping.unsentBytes()).as("the socket took it").isZero();
      assertThat(s.mapping.outboundProgress()).as("the trailers were taken").isGreaterThan(progress);
      s.carry();
      assertThat(s.engine.errors).isEmpty();
    }
  }

  @Test
  void errorAnswersAboveTheHighWaterMarkMakeItUnwritable() {
    StreamMappingInboundTest.Engine engine = new StreamMappingInboundTest.Engine();
    engine.maxQueuedOutboundBytes = 1024;
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT, engine)) {
      for (int id = 1; id <= 79; id += 2) {
        s.requestStream(id);
      }
      for (int id = 1; id <= 79 && s.mapping.isWritable(); id += 2) {
        s.mapping.write(error(id, "rejected: the service is not there, try another one"));
      }
      assertThat(s.mapping.isWritable()).as("error answers written past 1 KiB").isFalse();
      assertThat(engine.writability).containsExactly(false);

      s.mapping.flush();
      assertThat(s.mapping.isWritable()).as("flushed: the channel took them").isTrue();
      assertThat(engine.writability).containsExactly(false, true);
      s.carry();
    }
  }

  @Test
  void aClientsResetCountsOnceFlushedUntilTheSocketTookIt() {
    try (StreamMappingInboundTest.ClientSide c = new StreamMappingInboundTest.ClientSide(ByteBufAllocator.DEFAULT, (h, stream) -> {})) {
      c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(1, 8).data("x").toBytes())));
      c.mapping.flush();
      c.carry();
      long progress = c.mapping.outboundProgress();
      HeldSocket socket = HeldSocket.in(c.client);

      c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.cancel(1).toBytes())));
      assertThat(c.mapping.unsentBytes()).as("RST_STREAM written, not flushed").isZero();
      c.mapping.flush();
      assertThat(c.mapping.unsentBytes()).as("RST_STREAM flushed, not taken").isEqualTo(13);

      socket.take();
      assertThat(c.mapping.unsentBytes()).isZero();
      assertThat(c.mapping.outboundProgress()).isEqualTo(progress + 13);
      c.carry();
    }
  }

  @Test
  void aFailedWriteLeavesTheCountButIsNoProgress() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.requestStream(1);
      long progress = s.mapping.outboundProgress();
      RuntimeException gone = new RuntimeException("the socket is gone");
      s.server.pipeline().addFirst(SmallWritesTest.failingSocket(gone));
      s.mapping.write(
          Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, true).data("last").toBytes())));
      s.mapping.flush();
      assertThat(s.mapping.unsentBytes()).as("failed: nothing waits any more").isZero();
      assertThat(s.mapping.outboundProgress()).as("failed: nothing was taken").isEqualTo(progress);
    }
  }

  /**
   * A socket that takes nothing until told: first in a channel's pipeline, it keeps every write
   * (and its promise) and ignores flushes until {@link #take}.
   */
  static final class HeldSocket extends io.netty.channel.ChannelOutboundHandlerAdapter {
    private final java.util.List<Object> messages = new java.util.ArrayList<>();
    private final java.util.List<io.netty.channel.ChannelPromise> promises = new java.util.ArrayList<>();
    private io.netty.channel.ChannelHandlerContext ctx;

    static HeldSocket in(io.netty.channel.Channel ch) {
      HeldSocket h = new HeldSocket();
      ch.pipeline().addFirst(h);
      return h;
    }

    @Override
    public void handlerAdded(io.netty.channel.ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void write(io.netty.channel.ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
      messages.add(msg);
      promises.add(promise);
    }

    @Override
    public void flush(io.netty.channel.ChannelHandlerContext ctx) {}

    /** The socket takes what was written so far; this handler leaves the pipeline. */
    void take() {
      for (int i = 0; i < messages.size(); i++) {
        ctx.write(messages.get(i), promises.get(i));
      }
      messages.clear();
      promises.clear();
      ctx.flush();
      ctx.pipeline().remove(this);
    }
  }

  /** An application ERROR on {@code id}, length-prefixed as the engine writes it. */
  private static ByteBuf error(int id, String message) {
    return Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.error(id, 0x201, message).toBytes()));
  }
}
