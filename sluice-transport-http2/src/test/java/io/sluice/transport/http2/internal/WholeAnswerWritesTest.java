package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.ReadOnlyHttp2Headers;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link H2Answers#writeWhole} writes on a server's handler on an embedded channel: from the
 * third answer on (the first adds its fields to the HPACK table, the second finds them there and
 * is kept) the kept header blocks, without encoding, as long as the connection's table is
 * unchanged; after anything that may change it, through netty's frame writer again. A small
 * answer is one buffer either way (its pieces gathered by {@link SmallWrites}); a large message
 * without room goes as it is between the gathered pieces. Every header block written is decoded
 * with one decoder for the connection, as a peer would.
 */
class WholeAnswerWritesTest {
  private static final Http2Headers OK =
      ReadOnlyHttp2Headers.serverHeaders(false, AsciiString.of("200"), AsciiString.of("content-type"), AsciiString.of("application/grpc"));
  private static final Http2Headers OK_END = ReadOnlyHttp2Headers.trailers(false, AsciiString.of("grpc-status"), AsciiString.of("0"));
  private static final int HEADERS = 0x1;
  private static final int DATA = 0x0;
  private static final int SETTINGS = 0x4;
  private static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;

  private final List<H2Handler> handler = new ArrayList<>();
  private final DefaultHttp2HeadersDecoder peer = new DefaultHttp2HeadersDecoder(true);
  private EmbeddedChannel ch;
  /** Whether the answers' messages have room around them for the frames (else a bare slice). */
  private boolean room = true;
  /** The answers' message length (a small one is gathered with the frames around it). */
  private int bodyLength = 6;

  @AfterEach
  void close() {
    if (ch != null) {
      for (Object o; (o = ch.readOutbound()) != null; ) {
        ((ByteBuf) o).release();
      }
      ch.finishAndReleaseAll();
    }
  }

  /**
   * A server whose router answers every request that ends with its headers at once with a whole
   * answer; a request that goes on gets a sink that drops what comes.
   */
  private EmbeddedChannel server() throws Exception {
    H2Handler.Router router =
        (h, stream, headers, endStream) -> {
          handler.add(h);
          if (!endStream) {
            return H2Handler.NO_SINK;
          }
          byte[] body = new byte[bodyLength];
          java.nio.ByteBuffer.wrap(body).putInt(1, bodyLength - 5); // a gRPC message of the rest
          java.util.Arrays.fill(body, 5, bodyLength, (byte) 42);
          ByteBuf data;
          if (room) {
            data = Unpooled.buffer(H2Answers.HEAD_ROOM + body.length + H2Answers.TAIL_ROOM);
            data.setIndex(H2Answers.HEAD_ROOM, H2Answers.HEAD_ROOM).writeBytes(body);
          } else {
            data = Unpooled.wrappedBuffer(body).asReadOnly();
          }
          assertThat(H2Answers.writeWhole(h, stream, OK, data, OK_END, h.ctx().newPromise())).isTrue();
          h.flushNow();
          return null;
        };
    return serve(Http2Options.limits(100, 65_535, 8192, false), router);
  }

  /** A server with {@code limits} and {@code router}, past the preface and SETTINGS of a client. */
  private EmbeddedChannel serve(H2Handler.Limits limits, H2Handler.Router router) {
    ch = new EmbeddedChannel(H2Handler.build(true, limits, router));
    ch.writeInbound(Unpooled.wrappedBuffer(Http2CodecUtil.connectionPrefaceBuf()));
    ch.writeInbound(ControlFrameFloodTest.frame(SETTINGS, 0, 0, 0));
    drain(); // the server's SETTINGS and its ACK
    return ch;
  }

  private static ByteBuf settings(int id, int value) {
    ByteBuf b = Unpooled.buffer(15);
    b.writeMedium(6).writeByte(SETTINGS).writeByte(0).writeInt(0).writeShort(id).writeInt(value);
    return b;
  }

  /** The buffers written since the last call, each released. */
  private List<byte[]> drain() {
    List<byte[]> out = new ArrayList<>();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      b.release();
      out.add(bytes);
    }
    return out;
  }

  /** How an answer went out. */
  private record Answer(int buffers, boolean kept) {}

  /** A request on {@code id}; returns how its answer went out, having checked the answer. */
  private Answer answer(int id) throws Exception {
    long keptBefore = handler.isEmpty() ? 0 : handler.get(handler.size() - 1).answerBlocks().keptWrites();
    ch.writeInbound(ControlFrameFloodTest.request(id).setByte(4, 0x4 | 0x1)); // END_STREAM
    List<byte[]> written = drain();
    long kept = handler.get(handler.size() - 1).answerBlocks().keptWrites() - keptBefore;
    assertThat(kept).isBetween(0L, 1L);
    List<Http2Headers> blocks = new ArrayList<>();
    int dataBytes = 0;
    for (WrittenFrames.Frame f : WrittenFrames.parse(written.stream().map(Unpooled::wrappedBuffer).toList())) {
      assertThat(f.stream()).isEqualTo(id);
      if (f.type() == HEADERS) {
        blocks.add(peer.decodeHeaders(id, f.payloadBuffer()));
      } else {
        assertThat(f.type()).isEqualTo(DATA);
        dataBytes += f.payload().length;
      }
    }
    assertThat(blocks).as("answer on stream %d", id).hasSize(2);
    assertThat(blocks.get(0).status()).hasToString("200");
    assertThat(blocks.get(0).get("content-type")).hasToString("application/grpc");
    assertThat(blocks.get(0).size()).isEqualTo(2);
    assertThat(blocks.get(1).get("grpc-status")).hasToString("0");
    assertThat(blocks.get(1).size()).isEqualTo(1);
    assertThat(dataBytes).isEqualTo(bodyLength);
    return new Answer(written.size(), kept == 1);
  }

  /**
   * A whole answer on a stream whose request bytes were not consumed (a reader that paused) gives
   * them back to the connection's window without flushing: the caller flushes. (Closing the
   * stream with them unconsumed made netty's flow controller flush in the middle of the caller's
   * writes.) The flush then carries the connection's WINDOW_UPDATE with the answer.
   */
  @Test
  void anAnswerOnAStreamWithUnconsumedBytesLeavesTheFlushToTheCaller() throws Exception {
    H2Handler.Limits limits = new H2Handler.Limits(100, 65535, 65535, 8192, 16384, false);
    List<Http2Stream> streams = new ArrayList<>();
    H2Handler.Router router =
        (h, stream, headers, endStream) -> {
          handler.add(h);
          streams.add(stream);
          return new H2Handler.StreamSink() {
            @Override
            public void onHeaders(Http2Stream s, Http2Headers hd, boolean end) {}

            @Override
            public int onData(Http2Stream s, ByteBuf d, int padding, boolean end) {
              return 0; // consumes nothing yet
            }

            @Override
            public void onReset(Http2Stream s, long code) {}

            @Override
            public void onClosed(Http2Stream s) {}
          };
        };
    serve(limits, router);
    ch.writeInbound(ControlFrameFloodTest.request(1)); // HEADERS, the request goes on
    ch.writeInbound(ControlFrameFloodTest.frame(DATA, 0, 1, 16_384));
    ch.writeInbound(ControlFrameFloodTest.frame(DATA, 0, 1, 16_384));
    ch.writeInbound(ControlFrameFloodTest.frame(DATA, 0x1, 1, 7_232)); // END_STREAM: 40,000 bytes
    drain();
    Http2Stream stream = streams.get(0);
    assertThat(stream.state()).isEqualTo(Http2Stream.State.HALF_CLOSED_REMOTE);
    H2Handler server = handler.get(0);
    ByteBuf data = Unpooled.buffer(H2Answers.HEAD_ROOM + 8 + H2Answers.TAIL_ROOM);
    data.setIndex(H2Answers.HEAD_ROOM, H2Answers.HEAD_ROOM).writeBytes(new byte[8]);
    assertThat(H2Answers.writeWhole(server, stream, OK, data, OK_END, server.ctx().newPromise())).isTrue();
    assertThat((Object) ch.readOutbound()).as("written before the caller's flush").isNull();
    assertThat(stream.state()).isEqualTo(Http2Stream.State.CLOSED);
    server.flushNow();
    List<WrittenFrames.Frame> frames = WrittenFrames.drain(ch);
    assertThat(frames).as("the connection's window given back, with the flush")
        .anyMatch(f -> f.type() == 0x8 && f.stream() == 0);
    assertThat(frames).anyMatch(f -> f.type() == HEADERS && f.stream() == 1);
  }

  @Test
  void fromTheThirdAnswerOnTheKeptBlocksGoAndASmallAnswerIsOneBuffer() throws Exception {
    server();
    assertThat(answer(1)).isEqualTo(new Answer(1, false));
    assertThat(answer(3)).isEqualTo(new Answer(1, false));
    for (int id = 5; id < 25; id += 2) {
      assertThat(answer(id)).as("stream %d", id).isEqualTo(new Answer(1, true));
    }
  }

  @Test
  void aSmallMessageWithoutRoomIsGatheredWithTheKeptBlocks() throws Exception {
    room = false;
    server();
    assertThat(answer(1).kept()).isFalse();
    answer(3);
    for (int id = 5; id < 25; id += 2) {
      assertThat(answer(id)).as("stream %d", id).isEqualTo(new Answer(1, true));
    }
  }

  @Test
  void aLargeMessageWithoutRoomGoesAsItIsBetweenTheGatheredBlocks() throws Exception {
    room = false;
    bodyLength = SmallWrites.SMALL + 1;
    server();
    answer(1);
    answer(3);
    for (int id = 5; id < 25; id += 2) {
      assertThat(answer(id)).as("stream %d", id).isEqualTo(new Answer(3, true));
    }
  }

  @Test
  void anotherHeaderBlockSendsTheNextAnswerThroughTheFrameWriter() throws Exception {
    server();
    answer(1);
    answer(3);
    assertThat(answer(5).kept()).isTrue();
    // A block with a new field, which the encoder adds to its table (indexes move by one).
    ch.writeInbound(ControlFrameFloodTest.request(7));
    H2Handler h = handler.get(handler.size() - 1);
    Http2Stream s7 = h.connection().stream(7);
    h.encoder().writeHeaders(h.ctx(), 7, new DefaultHttp2Headers().status("200").add("x-new", "v"), 0, true, h.ctx().newPromise());
    h.flushNow();
    ByteBuf frame = Unpooled.buffer();
    drain().forEach(frame::writeBytes);
    assertThat(frame.getUnsignedByte(3)).isEqualTo((short) HEADERS);
    assertThat(peer.decodeHeaders(7, frame.skipBytes(9)).get("x-new")).hasToString("v");
    frame.release();
    assertThat(s7.state()).isEqualTo(Http2Stream.State.HALF_CLOSED_LOCAL);
    assertThat(answer(9).kept()).as("after the table changed").isFalse();
    assertThat(answer(11).kept()).isTrue();
  }

  @Test
  void aTableSizeTakenAwayAndGivenBackBeforeTheNextAnswerIsHonoured() throws Exception {
    // SETTINGS_HEADER_TABLE_SIZE 0 then 4096 with no header block between: the maximum is the same
    // as before, but the table was emptied and the next block must open with size updates.
    server();
    answer(1);
    answer(3);
    assertThat(answer(5).kept()).isTrue();
    ByteBuf both = Unpooled.buffer();
    both.writeBytes(settings(SETTINGS_HEADER_TABLE_SIZE, 0)).writeBytes(settings(SETTINGS_HEADER_TABLE_SIZE, 4096));
    ch.writeInbound(both);
    drain(); // the two ACKs
    peer.configuration().maxHeaderTableSize(0);
    peer.configuration().maxHeaderTableSize(4096);
    assertThat(answer(7).kept()).isFalse();
    assertThat(answer(9).kept()).isFalse();
    assertThat(answer(11).kept()).isTrue();
  }

  /**
   * A small answer with kept blocks whose gathering buffer cannot be had (the allocator refuses
   * it, as netty does when direct memory runs out): the answer's promise fails with the cause,
   * its message is released, nothing of it is written, the windows it was charged are given back,
   * and the connection is closed (what was written of a failed answer may be half of it).
   */
  @Test
  void aSmallAnswerThatGetsNoRoomFailsItsPromiseAndReleasesItsMessage() throws Exception {
    room = false;
    refusedAnswerIsUndone();
  }

  /** The same for a large message without room: its kept HEADERS and DATA header get no room. */
  @Test
  void aLargeAnswerThatGetsNoRoomForItsHeadersFailsItsPromiseAndReleasesItsMessage() throws Exception {
    room = false;
    bodyLength = SmallWrites.SMALL + 1;
    refusedAnswerIsUndone();
  }

  private void refusedAnswerIsUndone() throws Exception {
    server();
    answer(1);
    answer(3); // the blocks are kept from here
    ByteBufAllocator before = ch.config().getAllocator();
    OutOfMemoryError refused = new OutOfMemoryError("refused by the test's allocator");
    boolean[] refuse = {false};
    ch.config()
        .setAllocator(
            new io.netty.buffer.AbstractByteBufAllocator(false) {
              @Override
              public boolean isDirectBufferPooled() {
                return false;
              }

              @Override
              protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                if (refuse[0]) {
                  throw refused;
                }
                return Unpooled.buffer(initialCapacity, maxCapacity);
              }

              @Override
              protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                if (refuse[0]) {
                  throw refused;
                }
                return Unpooled.directBuffer(initialCapacity, maxCapacity);
              }
            });
    ch.writeInbound(ControlFrameFloodTest.request(5)); // not ended: the router leaves it open
    H2Handler h = handler.get(handler.size() - 1);
    Http2Stream s5 = h.connection().stream(5);
    ByteBuf body = Unpooled.wrappedBuffer(new byte[bodyLength]);
    ChannelPromise promise = h.ctx().newPromise();
    var flow = h.connection().remote().flowController();
    int connectionWindow = flow.windowSize(h.connection().connectionStream());
    int streamWindow = flow.windowSize(s5);
    refuse[0] = true;
    try {
      assertThat(H2Answers.writeWhole(h, s5, OK, body.asReadOnly(), OK_END, promise)).as("taken, and failed").isTrue();
      assertThat(flow.windowSize(h.connection().connectionStream())).as("the connection's window, given back").isEqualTo(connectionWindow);
      assertThat(flow.windowSize(s5)).as("the stream's window, given back").isEqualTo(streamWindow);
    } finally {
      refuse[0] = false;
      ch.config().setAllocator(before);
    }
    assertThat(promise.isDone()).isTrue();
    assertThat(promise.cause()).isSameAs(refused);
    assertThat(body.refCnt()).as("the message released").isZero();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).as("the connection closed: no stream of it can go on").isFalse();
    assertThat(WrittenFrames.parse(drain().stream().map(Unpooled::wrappedBuffer).toList()))
        .as("nothing of the answer written")
        .noneMatch(f -> f.stream() == 5);
  }
}
