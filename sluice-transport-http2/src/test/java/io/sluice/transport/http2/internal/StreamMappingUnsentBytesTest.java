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
  void countsWhatWasWrittenUntilTheSocketTookIt() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      assertThat(s.mapping.unsentBytes()).as("before any answer").isZero();
      s.open(1, "/rsocket/stream");
      s.data(1, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(1, Integer.MAX_VALUE).data("go").toBytes())), true);
      s.carry();
      ByteBuf answer =
          Unpooled.buffer()
              .writeBytes(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, false).data("first").toBytes()))
              .writeBytes(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, false).data("second").toBytes()));
      int bytes = answer.readableBytes();

      s.mapping.write(answer);
      assertThat(s.mapping.unsentBytes())
          .as("written, not flushed: the DATA and the :status HEADERS before it")
          .isEqualTo(bytes + OutboundBytes.headers(StreamRules.RESPONSE_HEADERS));

      s.mapping.flush();
      assertThat(s.mapping.unsentBytes()).as("flushed: the channel took it").isZero();
      s.carry();
      assertThat(s.engine.errors).isEmpty();
    }
  }

  @Test
  void anErrorAnswerCountsUntilTheSocketTookIt() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      request(s, 1);
      long progress = s.mapping.outboundProgress();

      s.mapping.write(error(1, "no such route"));
      assertThat(s.mapping.unsentBytes()).as("trailers written, not flushed").isPositive();
      assertThat(s.mapping.outboundProgress()).as("nothing taken yet").isEqualTo(progress);

      s.mapping.flush();
      assertThat(s.mapping.unsentBytes()).as("flushed: the channel took it").isZero();
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
        request(s, id);
      }
      for (int id = 1; id <= 79 && s.mapping.isWritable(); id += 2) {
        s.mapping.write(error(id, "rejected: the service is not there, try another one"));
      }
      assertThat(s.mapping.isWritable()).as("40 error answers queued, 1 KiB allowed").isFalse();
      assertThat(engine.writability).containsExactly(false);

      s.mapping.flush();
      assertThat(s.mapping.isWritable()).as("flushed: the channel took them").isTrue();
      assertThat(engine.writability).containsExactly(false, true);
      s.carry();
    }
  }

  @Test
  void aClientsResetCountsUntilTheSocketTookIt() {
    try (StreamMappingInboundTest.ClientSide c = new StreamMappingInboundTest.ClientSide(ByteBufAllocator.DEFAULT, (h, stream) -> {})) {
      c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(1, 8).data("x").toBytes())));
      c.mapping.flush();
      c.carry();
      long progress = c.mapping.outboundProgress();

      c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.cancel(1).toBytes())));
      assertThat(c.mapping.unsentBytes()).as("RST_STREAM written, not flushed").isEqualTo(13);

      c.mapping.flush();
      assertThat(c.mapping.unsentBytes()).isZero();
      assertThat(c.mapping.outboundProgress()).isEqualTo(progress + 13);
      c.carry();
    }
  }

  /** Opens stream {@code id} with a whole REQUEST_STREAM and carries it to the server. */
  private static void request(ServerSide s, int id) {
    s.open(id, "/rsocket/stream");
    s.data(id, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(id, Integer.MAX_VALUE).data("go").toBytes())), true);
    s.carry();
  }

  /** An application ERROR on {@code id}, length-prefixed as the engine writes it. */
  private static ByteBuf error(int id, String message) {
    return Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.error(id, 0x201, message).toBytes()));
  }
}
