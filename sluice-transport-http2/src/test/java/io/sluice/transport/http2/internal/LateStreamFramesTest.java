package io.sluice.transport.http2.internal;

import static io.sluice.transport.http2.internal.ControlFrameFloodTest.frame;
import static io.sluice.transport.http2.internal.ControlFrameFloodTest.request;
import static io.sluice.transport.http2.internal.ControlFrameFloodTest.serverWithOpenStreams;
import static io.sluice.transport.http2.internal.ControlFrameFloodTest.written;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server that sent GOAWAY ignores the frames of a stream the client opened after it (RFC 9113
 * 6.8) and goes on reading the connection: the streams the GOAWAY lets finish still hear their
 * client. netty refuses such a stream's HEADERS without creating it, then took its DATA, RST_STREAM
 * or WINDOW_UPDATE for a connection error (closing the draining connection); and a server that
 * swallowed that error read nothing more (netty's frame reader stops after a connection error).
 */
class LateStreamFramesTest {
  private static final int DATA = 0x0;
  private static final int RST_STREAM = 0x3;
  private static final int PING = 0x6;
  private static final int GOAWAY = 0x7;
  private static final int WINDOW_UPDATE = 0x8;

  private static ByteBuf rstStream(int streamId) {
    ByteBuf b = Unpooled.buffer(13);
    b.writeMedium(4).writeByte(RST_STREAM).writeByte(0).writeInt(streamId).writeInt(8); // CANCEL
    return b;
  }

  private static ByteBuf windowUpdate(int streamId) {
    ByteBuf b = Unpooled.buffer(13);
    b.writeMedium(4).writeByte(WINDOW_UPDATE).writeByte(0).writeInt(streamId).writeInt(1000);
    return b;
  }

  @Test
  void framesOfAStreamOpenedAfterOurGoAwayAreIgnoredAndTheConnectionStillReads() throws Exception {
    List<Http2Stream> opened = new ArrayList<>();
    EmbeddedChannel ch = serverWithOpenStreams(opened);
    ch.writeInbound(request(1));
    assertThat(opened).as("the request before the GOAWAY").hasSize(1);
    H2Handler h = ch.pipeline().get(H2Handler.class);
    h.goAway(Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
    written(ch); // the server's SETTINGS, its ack, the GOAWAY

    io.netty.handler.codec.http2.Http2LocalFlowController flow = h.decoder().flowController();
    Http2Stream connection = h.connection().connectionStream();
    int windowBefore = flow.windowSize(connection);
    // A request the client sent before the GOAWAY reached it, with what follows it on its stream.
    ch.writeInbound(request(3));
    for (int i = 0; i < 3; i++) {
      ch.writeInbound(frame(DATA, 0, 3, 16_000));
    }
    assertThat(windowBefore - flow.windowSize(connection))
        .as("the late DATA counted against the connection window")
        .isEqualTo(48_000);
    assertThat(flow.unconsumedBytes(connection)).as("and was given back at once").isZero();
    ch.writeInbound(windowUpdate(3));
    ch.writeInbound(rstStream(3));
    // Then the connection's own frames and the live stream's.
    ch.writeInbound(frame(PING, 0, 0, 8));
    ch.writeInbound(frame(DATA, 0, 1, 5));

    List<long[]> frames = written(ch);
    assertThat(frames)
        .as("no GOAWAY with an error: the draining connection lives")
        .noneMatch(f -> f[0] == GOAWAY && f[1] != Http2Error.NO_ERROR.code());
    assertThat(frames).as("the PING after the late frames was read and answered").anyMatch(f -> f[0] == PING);
    assertThat(opened).as("the late request opened no stream").hasSize(1);
    assertThat(ch.isOpen()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void beforeAnyGoAwayAFrameOfAStreamThatNeverExistedIsStillAConnectionError() throws Exception {
    // The filter works only after our GOAWAY: otherwise netty's rule stands (RFC 9113 5.1: a frame
    // on an idle stream other than HEADERS or PRIORITY is a PROTOCOL_ERROR).
    EmbeddedChannel ch = serverWithOpenStreams(new ArrayList<>());
    written(ch);
    ch.writeInbound(frame(DATA, 0, 5, 4));
    List<long[]> frames = written(ch);
    assertThat(frames).anyMatch(f -> f[0] == GOAWAY && f[1] == Http2Error.PROTOCOL_ERROR.code());
    ch.finishAndReleaseAll();
  }

  @Test
  void aFrameSplitAcrossReadsReachesTheHandlerWhole() throws Exception {
    List<Http2Stream> opened = new ArrayList<>();
    EmbeddedChannel ch = serverWithOpenStreams(opened);
    ByteBuf req = request(1);
    ByteBuf ping = frame(PING, 0, 0, 8);
    ByteBuf both = Unpooled.wrappedBuffer(req, ping);
    written(ch);
    // byte by byte: every partial frame waits for its rest
    while (both.isReadable()) {
      ch.writeInbound(both.readRetainedSlice(1));
    }
    both.release();
    assertThat(opened).hasSize(1);
    assertThat(written(ch)).anyMatch(f -> f[0] == PING);
    ch.finishAndReleaseAll();
  }
}
