package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ServerSide;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server's answer to a mapped request whose whole response is in one of its engine's batches
 * ({@code :status 200}, the frames as DATA, {@code rsocket-status: 0}) goes out past netty's
 * connection encoder ({@link H2Answers#writeWhole}): from the third answer on a connection with
 * the header blocks kept, and, a small answer, in one buffer ({@link SmallWrites} gathers HEADERS
 * and the DATA frame header, the frames as the engine wrote them, the trailers). Each answer is
 * read back frame by frame, its header blocks by one decoder for the connection as the client
 * would.
 */
class StreamMappingWholeAnswerTest {
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int END_STREAM = 0x1;

  private final DefaultHttp2HeadersDecoder peer = new DefaultHttp2HeadersDecoder(true);

  /** What the server wrote on one stream since the last read: its header blocks, DATA, buffers. */
  private record Written(List<Http2Headers> blocks, List<Integer> headerFlags, byte[] data, int buffers) {}

  /** Reads and releases what the server wrote, decoding its header blocks on stream {@code id}. */
  private Written read(ServerSide s, int id) throws Exception {
    int buffers = 0;
    List<ByteBuf> written = new ArrayList<>();
    for (Object o; (o = s.server.readOutbound()) != null; buffers++) {
      written.add((ByteBuf) o);
    }
    List<WrittenFrames.Frame> frames;
    try {
      frames = WrittenFrames.parse(written);
    } finally {
      written.forEach(ByteBuf::release);
    }
    List<Http2Headers> blocks = new ArrayList<>();
    List<Integer> headerFlags = new ArrayList<>();
    java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
    for (WrittenFrames.Frame f : frames) {
      if (f.stream() == 0) {
        continue; // a WINDOW_UPDATE for the connection, say
      }
      assertThat(f.stream()).isEqualTo(id);
      if (f.type() == HEADERS) {
        blocks.add(peer.decodeHeaders(id, f.payloadBuffer()));
        headerFlags.add(f.flags());
      } else if (f.type() == DATA) {
        data.write(f.payload());
      }
    }
    return new Written(blocks, headerFlags, data.toByteArray(), buffers);
  }

  /** The server's answer on stream {@code id}, checked; returns how many buffers it took. */
  private int readAnswer(ServerSide s, int id, byte[] expectedData, boolean ended) throws Exception {
    Written w = read(s, id);
    assertThat(w.blocks()).as("header blocks on stream %d", id).hasSize(ended ? 2 : 1);
    assertThat(w.blocks().get(0).status()).hasToString("200");
    assertThat(w.blocks().get(0).get("content-type")).hasToString(MappingWire.CONTENT_TYPE.toString());
    assertThat(w.headerFlags().get(0) & END_STREAM).isZero();
    if (ended) {
      assertThat(w.blocks().get(1).get(MappingWire.STATUS)).hasToString("0");
      assertThat(w.headerFlags().get(1) & END_STREAM).isEqualTo(END_STREAM);
    }
    assertThat(w.data()).as("the engine's frames as DATA").isEqualTo(expectedData);
    return w.buffers();
  }

  private static byte[] frames(byte[]... frames) {
    ByteBuf b = Unpooled.buffer();
    for (byte[] f : frames) {
      b.writeBytes(FrameBuilder.lengthPrefixed(f));
    }
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    b.release();
    return out;
  }

  @Test
  void aResponseWholeInOneBatchGoesOutAsOneAnswerAndFromTheThirdOnWithKeptBlocksInOneBuffer() throws Exception {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.server.readOutbound(); // nothing yet; the handshake was carried
      for (int i = 0; i < 8; i++) {
        int id = 2 * i + 1;
        s.requestStream(id);
        byte[] answer =
            frames(
                FrameBuilder.payload(id, true, false).data("a").toBytes(),
                FrameBuilder.payload(id, true, false).data("bb").toBytes(),
                FrameBuilder.payload(id, true, true).data("ccc").toBytes());
        long kept = s.serverH2.answerBlocks().keptWrites();
        s.mapping.write(Unpooled.wrappedBuffer(answer));
        s.mapping.flush();
        int buffers = readAnswer(s, id, answer, true);
        // A small answer's pieces (the kept blocks around a slice of the batch) are gathered.
        assertThat(buffers).as("buffers of answer %d", i).isEqualTo(1);
        assertThat(s.serverH2.answerBlocks().keptWrites() - kept).as("kept blocks in answer %d", i).isEqualTo(i >= 2 ? 1 : 0);
        assertThat(s.serverH2.connection().numActiveStreams()).as("streams open after answer %d", i).isZero();
      }
      assertThat(s.engine.errors).isEmpty();
    }
  }

  /**
   * A whole answer to a request whose client half has ended closes the stream as it is handed
   * over, before any flush (netty's own way waits for the write with a listener per answer), and
   * the engine hears nothing of that close: only the request came to it.
   */
  @Test
  void aWholeAnswerClosesItsStreamAsItIsHandedOverAndTheEngineHearsNoCancel() throws Exception {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      for (int i = 0; i < 4; i++) { // the first answers with blocks written by netty, then kept ones
        int id = 2 * i + 1;
        s.requestStream(id);
        int before = s.engine.types.size();
        byte[] answer = frames(FrameBuilder.payload(id, true, true).data("ok").toBytes());
        s.mapping.write(Unpooled.wrappedBuffer(answer));
        Http2Stream stream = s.serverH2.connection().stream(id);
        assertThat(stream == null || stream.state() == Http2Stream.State.CLOSED).as("stream %d closed before the flush", id).isTrue();
        assertThat(s.serverH2.connection().numActiveStreams()).isZero();
        assertThat((Object) s.server.readOutbound()).as("nothing flushed yet").isNull();
        s.mapping.flush();
        readAnswer(s, id, answer, true);
        assertThat(s.engine.types.size()).as("frames the engine got after the answer").isEqualTo(before);
      }
      assertThat(s.engine.errors).isEmpty();
    }
  }

  /**
   * A request-stream with bounded demand: the client keeps its half open (it may still send
   * REQUEST_N), so the whole answer leaves the stream half closed on the server's side until the
   * client ends its half.
   */
  @Test
  void aWholeAnswerOnAStreamTheClientKeepsOpenHalfClosesIt() throws Exception {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      for (int i = 0; i < 4; i++) {
        int id = 2 * i + 1;
        s.open(id, "/rsocket/stream");
        s.data(id, Unpooled.wrappedBuffer(frames(FrameBuilder.requestStream(id, 8).data("go").toBytes())), false);
        s.carry();
        byte[] answer =
            frames(
                FrameBuilder.payload(id, true, false).data("a").toBytes(),
                FrameBuilder.payload(id, true, true).data("b").toBytes());
        long kept = s.serverH2.answerBlocks().keptWrites();
        s.mapping.write(Unpooled.wrappedBuffer(answer));
        s.mapping.flush();
        int buffers = readAnswer(s, id, answer, true);
        // A small answer's pieces (the kept blocks around a slice of the batch) are gathered.
        assertThat(buffers).as("buffers of answer %d", i).isEqualTo(1);
        assertThat(s.serverH2.answerBlocks().keptWrites() - kept).as("kept blocks in answer %d", i).isEqualTo(i >= 2 ? 1 : 0);
        assertThat(s.serverH2.connection().stream(id).state()).isEqualTo(Http2Stream.State.HALF_CLOSED_LOCAL);
        s.data(id, Unpooled.EMPTY_BUFFER, true); // the client's half ends
        s.carry();
        assertThat(s.serverH2.connection().numActiveStreams()).as("streams open after answer %d", i).isZero();
      }
      assertThat(s.engine.errors).isEmpty();
    }
  }

  @Test
  void aResponseThatGoesOnIsAnsweredThroughTheEncoderAndEndsWithTrailersLater() throws Exception {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      for (int i = 0; i < 3; i++) {
        int id = 2 * i + 1;
        s.requestStream(id);
        byte[] first = frames(FrameBuilder.payload(id, true, false).data("a").toBytes());
        s.mapping.write(Unpooled.wrappedBuffer(first));
        s.mapping.flush();
        readAnswer(s, id, first, false);
        assertThat(s.serverH2.connection().numActiveStreams()).isEqualTo(1);
        byte[] last = frames(FrameBuilder.payload(id, true, true).data("z").toBytes());
        s.mapping.write(Unpooled.wrappedBuffer(last));
        s.mapping.flush();
        // The rest: DATA and trailers, no second :status.
        Written rest = read(s, id);
        assertThat(rest.data()).isEqualTo(last);
        assertThat(rest.blocks()).hasSize(1);
        assertThat(rest.blocks().get(0).status()).isNull();
        assertThat(rest.blocks().get(0).get(MappingWire.STATUS)).hasToString("0");
        assertThat(rest.headerFlags().get(0) & END_STREAM).isEqualTo(END_STREAM);
        assertThat(s.serverH2.connection().numActiveStreams()).isZero();
      }
    }
  }
}
