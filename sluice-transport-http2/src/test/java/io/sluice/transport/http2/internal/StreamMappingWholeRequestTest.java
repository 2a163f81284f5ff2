package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ClientSide;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A mapping client's request whose first frame is whole in one of its engine's batches goes out
 * past netty's connection encoder ({@link H2Answers#writeRequest}): its HEADERS and DATA, ending
 * the stream when the request ends the client's half, from the third request of a kind on as one
 * buffer (the kept header block, the DATA frame header and the frame copied behind them), or two
 * for a frame of more than 256 bytes (the frame as the engine wrote it after). What the client writes is read frame by frame before the server gets it, its header blocks
 * by one decoder for the connection as the server's; every stream then ends as usual.
 */
class StreamMappingWholeRequestTest {
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

  private final DefaultHttp2HeadersDecoder peer = new DefaultHttp2HeadersDecoder(true);

  /**
   * A client whose server answers every stream with {@code :status 200}, then, when {@code ends},
   * OK trailers (no DATA either way).
   */
  private static ClientSide client(boolean ends) {
    return new ClientSide(
        ByteBufAllocator.DEFAULT,
        (h, stream) -> {
          h.encoder()
              .writeHeaders(
                  h.ctx(), stream.id(), new DefaultHttp2Headers().status("200").add("content-type", MappingWire.CONTENT_TYPE),
                  0, false, h.newPromise());
          if (ends) {
            h.encoder()
                .writeHeaders(
                    h.ctx(), stream.id(), new DefaultHttp2Headers().add(MappingWire.STATUS, MappingWire.STATUS_OK), 0, true,
                    h.newPromise());
          }
          h.flushNow();
        });
  }

  private static ClientSide client() {
    return client(true);
  }

  /** What the client wrote on one stream: its header blocks and their flags, DATA, the buffers. */
  private record Written(List<Http2Headers> blocks, List<Integer> headerFlags, byte[] data, int lastDataFlags, int buffers) {}

  /**
   * Takes what the client flushed, hands it to the server as one read (and the server's answer
   * back), and reads what it wrote on stream {@code id}.
   */
  private Written send(ClientSide c, int id) throws Exception {
    List<ByteBuf> out = new ArrayList<>();
    for (Object o; (o = c.client.readOutbound()) != null; ) {
      out.add((ByteBuf) o);
    }
    List<WrittenFrames.Frame> frames = WrittenFrames.parse(out);
    if (!out.isEmpty()) {
      c.server.writeInbound(out.toArray());
    }
    StreamMappingInboundTest.carry(c.server, c.client);
    List<Http2Headers> blocks = new ArrayList<>();
    List<Integer> headerFlags = new ArrayList<>();
    java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
    int lastDataFlags = -1;
    for (WrittenFrames.Frame f : frames) {
      if (f.stream() != id) {
        // A WINDOW_UPDATE for the connection, or the end of an earlier stream's half.
        assertThat(f.type()).as("frame type on stream %d", f.stream()).isNotEqualTo(HEADERS);
        continue;
      }
      if (f.type() == HEADERS) {
        assertThat(data.size()).as("HEADERS before any DATA").isZero();
        blocks.add(peer.decodeHeaders(id, f.payloadBuffer()));
        headerFlags.add(f.flags());
      } else if (f.type() == DATA) {
        data.write(f.payload());
        lastDataFlags = f.flags();
      }
    }
    return new Written(blocks, headerFlags, data.toByteArray(), lastDataFlags, out.size());
  }

  /** Checks the request on stream {@code id}: one HEADERS block for {@code path}, the frame as DATA. */
  private static void checkRequest(Written w, int id, String path, byte[] frame, boolean endsStream) {
    assertThat(w.blocks()).as("header blocks on stream %d", id).hasSize(1);
    Http2Headers h = w.blocks().get(0);
    assertThat(h.method()).hasToString("POST");
    assertThat(h.scheme()).hasToString("http");
    assertThat(h.authority()).hasToString("test");
    assertThat(h.path()).hasToString(path);
    assertThat(h.get("content-type")).hasToString(MappingWire.CONTENT_TYPE.toString());
    assertThat(h.size()).isEqualTo(5);
    assertThat(w.headerFlags().get(0)).as("HEADERS flags").isEqualTo(END_HEADERS);
    assertThat(w.data()).as("the request frame as DATA").isEqualTo(frame);
    assertThat(w.lastDataFlags() & END_STREAM).as("END_STREAM on the last DATA").isEqualTo(endsStream ? END_STREAM : 0);
  }

  private static byte[] prefixed(byte[] frame) {
    return FrameBuilder.lengthPrefixed(frame);
  }

  private static void write(ClientSide c, byte[] prefixed) {
    c.mapping.write(Unpooled.wrappedBuffer(prefixed));
    c.mapping.flush();
  }

  @Test
  void requestsWholeInOneBatchGoOutAsTheEncoderWouldWriteThemAndFromTheThirdOnInOneBuffer() throws Exception {
    try (ClientSide c = client()) {
      for (int i = 0; i < 12; i++) {
        int id = 2 * i + 1;
        boolean large = i >= 8; // frames beyond what is copied behind the headers
        String payload = large ? "y".repeat(SmallWrites.SMALL + 100 * i) : "x" + i;
        byte[] request = prefixed(FrameBuilder.requestResponse(id).data(payload).toBytes());
        Http2RemoteFlowController flow = c.clientH2.connection().remote().flowController();
        Http2Stream connection = c.clientH2.connection().connectionStream();
        int connectionWindow = flow.windowSize(connection);
        write(c, request);
        Http2Stream stream = c.clientH2.connection().stream(id);
        assertThat(stream.state()).isEqualTo(Http2Stream.State.HALF_CLOSED_LOCAL);
        assertThat(flow.windowSize(stream)).as("stream window").isEqualTo(flow.initialWindowSize() - request.length);
        assertThat(flow.windowSize(connection)).as("connection window").isEqualTo(connectionWindow - request.length);
        Written w = send(c, id);
        checkRequest(w, id, "/rsocket/response", request, true);
        if (i >= 2) {
          assertThat(w.buffers()).as("buffers of request %d", i).isEqualTo(large ? 2 : 1);
        }
        assertThat(c.answered).isEqualTo(i + 1);
        assertThat(c.clientH2.connection().numActiveStreams()).as("streams open after request %d", i).isZero();
      }
      assertThat(c.engine.errors).isEmpty();
    }
  }

  /**
   * Every kind of request, one after another on one connection: each one's HEADERS name its path,
   * the first frame follows whole, and the stream ends with it only when the client's half ends
   * there (a request-stream with bounded demand and a channel keep it open).
   */
  @Test
  void everyKindOfRequestKeepsItsPathAndItsEnd() throws Exception {
    try (ClientSide c = client()) {
      int id = 1; // the engine's ids and the HTTP/2 ones alike here
      for (int round = 0; round < 3; round++) {
        for (int kind = 0; kind < 5; kind++, id += 2) {
          byte[] frame =
              prefixed(
                  switch (kind) {
                    case 0 -> FrameBuilder.requestResponse(id).data("r").toBytes();
                    case 1 -> FrameBuilder.requestFnf(id).data("f").toBytes();
                    case 2 -> FrameBuilder.requestStream(id, Integer.MAX_VALUE).data("s").toBytes();
                    case 3 -> FrameBuilder.requestStream(id, 8).data("b").toBytes();
                    default -> FrameBuilder.requestChannel(id, 8).data("c").toBytes();
                  });
          String path = new String[] {"/rsocket/response", "/rsocket/fnf", "/rsocket/stream", "/rsocket/stream", "/rsocket/channel"}[kind];
          boolean ends = kind < 3;
          write(c, frame);
          assertThat(c.clientH2.connection().stream(id).state())
              .as("request %d's stream once written", id)
              .isEqualTo(ends ? Http2Stream.State.HALF_CLOSED_LOCAL : Http2Stream.State.OPEN);
          checkRequest(send(c, id), id, path, frame, ends);
        }
      }
      assertThat(c.answered).isEqualTo(15);
    }
  }

  /**
   * A request larger than the server's frame size goes through the encoder (its flow controller
   * cuts it into frames, as the windows allow); the next requests go out whole again.
   */
  @Test
  void aRequestLargerThanAFrameGoesThroughTheEncoderAndTheNextOnesWholeAgain() throws Exception {
    try (ClientSide c = client()) {
      byte[] big = new byte[100_000];
      java.util.Arrays.fill(big, (byte) 'b');
      byte[] bigRequest = prefixed(FrameBuilder.requestResponse(1).data(big).toBytes());
      write(c, bigRequest);
      ByteBuf arrived = Unpooled.buffer();
      try {
        Written first = send(c, 1);
        assertThat(first.blocks()).hasSize(1);
        assertThat(first.blocks().get(0).path()).hasToString("/rsocket/response");
        arrived.writeBytes(first.data());
        for (int i = 0; i < 10 && arrived.readableBytes() < bigRequest.length; i++) {
          c.mapping.flush(); // the window updates the server sent have come back: the rest goes
          arrived.writeBytes(send(c, 1).data());
        }
        byte[] all = new byte[arrived.readableBytes()];
        arrived.readBytes(all);
        assertThat(all).isEqualTo(bigRequest);
      } finally {
        arrived.release();
      }
      assertThat(c.answered).isEqualTo(1);
      for (int i = 1; i < 5; i++) {
        int id = 2 * i + 1;
        byte[] request = prefixed(FrameBuilder.requestResponse(id).data("small").toBytes());
        write(c, request);
        Written w = send(c, id);
        checkRequest(w, id, "/rsocket/response", request, true);
        if (i >= 3) {
          assertThat(w.buffers()).as("buffers of request %d", i).isEqualTo(1);
        }
      }
      assertThat(c.clientH2.connection().numActiveStreams()).isZero();
    }
  }

  /**
   * Several requests in one batch of the engine: each stream's HEADERS go out before its DATA and
   * before any later stream's HEADERS, ids rising, whichever way each one is written.
   */
  @Test
  void requestsInOneBatchOpenTheirStreamsInOrder() throws Exception {
    try (ClientSide c = client()) {
      int lastOpened = 0;
      java.util.Set<Integer> opened = new java.util.HashSet<>(); // on the connection so far
      for (int round = 0; round < 3; round++) {
        int first = 10 * round + 1;
        java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
        batch.write(prefixed(FrameBuilder.requestResponse(first).data("a").toBytes()));
        batch.write(prefixed(FrameBuilder.requestStream(first + 2, 8).data("b").toBytes()));
        batch.write(prefixed(FrameBuilder.requestN(first + 2, 4).toBytes()));
        batch.write(prefixed(FrameBuilder.requestFnf(first + 4).data("c").toBytes()));
        batch.write(prefixed(FrameBuilder.requestResponse(first + 6).data("y".repeat(400)).toBytes()));
        batch.write(prefixed(FrameBuilder.requestChannel(first + 8, 8).data("d").toBytes()));
        write(c, batch.toByteArray());
        List<ByteBuf> out = new ArrayList<>();
        for (Object o; (o = c.client.readOutbound()) != null; ) {
          out.add((ByteBuf) o);
        }
        List<WrittenFrames.Frame> frames = WrittenFrames.parse(out);
        c.server.writeInbound(out.toArray());
        StreamMappingInboundTest.carry(c.server, c.client);
        int openedNow = 0;
        for (WrittenFrames.Frame f : frames) {
          if (f.type() == HEADERS) {
            assertThat(f.stream()).as("a new stream's id").isGreaterThan(lastOpened);
            lastOpened = f.stream();
            opened.add(f.stream());
            openedNow++;
          } else if (f.type() == DATA) {
            // (an earlier batch's stream may end its half now: the server answered it whole)
            assertThat(opened).as("DATA on stream %d after its HEADERS", f.stream()).contains(f.stream());
          }
        }
        assertThat(openedNow).as("streams opened by batch %d", round).isEqualTo(5);
      }
      assertThat(c.answered).isEqualTo(15);
      assertThat(c.engine.errors).isEmpty();
    }
  }

  /** A stream whose request went out whole is an opened stream like any other: a CANCEL resets it. */
  @Test
  void aCancelAfterAWholeRequestResetsTheStream() throws Exception {
    try (ClientSide c = client(false)) {
      for (int i = 0; i < 4; i++) {
        int id = 2 * i + 1;
        write(c, prefixed(FrameBuilder.requestStream(id, 8).data("s").toBytes()));
        send(c, id);
        write(c, prefixed(FrameBuilder.cancel(id).toBytes()));
        List<WrittenFrames.Frame> frames = WrittenFrames.drain(c.client);
        assertThat(frames)
            .as("frames after the CANCEL of stream %d", id)
            .anyMatch(f -> f.type() == 0x3 && f.stream() == id && f.payloadBuffer().getInt(0) == 0x8);
        assertThat(c.clientH2.connection().stream(id)).isNull();
      }
    }
  }
}
