package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ClientSide;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ServerSide;
import org.junit.jupiter.api.Test;

/**
 * How the stream mapping ends streams whose peer ends them against the mapping's rules
 * (docs/http2-stream-mapping.md): each such stream still ends, on both sides, so no stream slot
 * is kept by a stream nobody will end.
 */
class StreamMappingEndsTest {
  private static final int CANCEL = FrameBuilder.TYPE_CANCEL;
  private static final int ERROR = FrameBuilder.TYPE_ERROR;
  private static final int PAYLOAD = FrameBuilder.TYPE_PAYLOAD;

  /** A requester of a channel must complete its direction (PAYLOAD+COMPLETE) before END_STREAM. */
  @Test
  void aChannelWhoseRequesterEndsTheStreamWithoutCompletingIsReset() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.open(1, "/rsocket/channel");
      s.data(1, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestChannel(1, 8).data("a").toBytes())), false);
      s.carry();
      s.data(1, Unpooled.EMPTY_BUFFER, true); // END_STREAM, no COMPLETE
      s.carry();
      assertThat(s.engine.types).as("frames the engine got (type << 24 | stream)").contains(CANCEL << 24 | 1);
      assertThat(s.serverH2.connection().numActiveStreams()).as("streams still open at the server").isZero();
    }
  }

  /** The same channel, completed before END_STREAM, stays open for the responder's answers. */
  @Test
  void aChannelWhoseRequesterCompletedStaysOpenForTheResponder() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.open(1, "/rsocket/channel");
      s.data(1, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestChannel(1, 8, true).data("a").toBytes())), true);
      s.carry();
      assertThat(s.engine.types).doesNotContain(CANCEL << 24 | 1);
      assertThat(s.serverH2.connection().numActiveStreams()).isEqualTo(1);
    }
  }

  /**
   * A server that ends request-streams with its COMPLETE and END_STREAM on the same DATA (no
   * rsocket-status trailers): the client still ends its half, so the stream closes and its slot is
   * free for the next request. 300 in turn, above the server's 256.
   */
  @Test
  void aServerEndingWithDataEndStreamAfterCompleteFreesTheClientsStream() {
    try (ClientSide c =
        new ClientSide(
            ByteBufAllocator.DEFAULT,
            (h, stream) -> {
              h.encoder().writeHeaders(h.ctx(), stream.id(), new DefaultHttp2Headers().status("200"), 0, false, h.newPromise());
              ByteBuf last = Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, true).data("z").toBytes()));
              h.encoder().writeData(h.ctx(), stream.id(), last, 0, true, h.newPromise());
              h.flushNow();
            })) {
      for (int i = 0; i < 300; i++) {
        c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(2 * i + 1, 8).data("x").toBytes())));
        c.mapping.flush();
        c.carry();
        c.carry();
      }
      assertThat(c.engine.errors).as("errors the engine got").isEmpty();
      assertThat(c.engine.types.stream().filter(t -> t >>> 24 == PAYLOAD).count()).as("answers").isEqualTo(300);
      assertThat(c.clientH2.connection().numActiveStreams()).as("streams still open at the client").isZero();
    }
  }

  /** Informational answers (1xx) come before the real one and say nothing about the stream. */
  @Test
  void aClientSkipsInformationalHeaders() {
    try (ClientSide c =
        new ClientSide(
            ByteBufAllocator.DEFAULT,
            (h, stream) -> {
              h.encoder().writeHeaders(h.ctx(), stream.id(), new DefaultHttp2Headers().status("100"), 0, false, h.newPromise());
              h.encoder().writeHeaders(h.ctx(), stream.id(), new DefaultHttp2Headers().status("103"), 0, false, h.newPromise());
              h.encoder().writeHeaders(
                  h.ctx(), stream.id(),
                  new DefaultHttp2Headers().status("200").add("content-type", MappingWire.CONTENT_TYPE), 0, false, h.newPromise());
              ByteBuf answer = Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.payload(1, true, true).data("z").toBytes()));
              h.encoder().writeData(h.ctx(), stream.id(), answer, 0, false, h.newPromise());
              h.encoder().writeHeaders(
                  h.ctx(), stream.id(), new DefaultHttp2Headers().add(MappingWire.STATUS, MappingWire.STATUS_OK), 0, true, h.newPromise());
              h.flushNow();
            })) {
      c.mapping.write(Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestResponse(1).data("x").toBytes())));
      c.mapping.flush();
      c.carry();
      c.carry();
      assertThat(c.engine.errors).as("errors the engine got").isEmpty();
      assertThat(c.engine.types).as("frames the engine got").contains(PAYLOAD << 24 | 1).doesNotContain(ERROR << 24 | 1);
      assertThat(c.clientH2.connection().numActiveStreams()).isZero();
    }
  }
}
