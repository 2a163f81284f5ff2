package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ServerSide;
import org.junit.jupiter.api.Test;

/**
 * {@code unsentBytes()} of the mapping: the DATA bytes handed to HTTP/2 that the socket has not
 * taken yet. The engine flushes part-way through a read batch only while it is 0 (the peer then
 * waits for what we have); a transport that cannot tell (-1) never gets those early flushes, and a
 * pipelined peer and this end take turns over whole batches.
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
      assertThat(s.mapping.unsentBytes()).as("written, not flushed").isEqualTo(bytes);

      s.mapping.flush();
      assertThat(s.mapping.unsentBytes()).as("flushed: the channel took it").isZero();
      s.carry();
      assertThat(s.engine.errors).isEmpty();
    }
  }
}
