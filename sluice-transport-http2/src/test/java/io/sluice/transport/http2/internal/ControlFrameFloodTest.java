package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server's bound on control frames ({@link H2Handler#MAX_CONTROL_FRAMES} per 10 s): SETTINGS and
 * SETTINGS acks always; PINGs, PING acks, WINDOW_UPDATEs, PRIORITY and unknown frames until the
 * server next sends HEADERS or DATA. The frames are fed to the server's handler on an embedded
 * channel, and what it writes back is read frame by frame.
 */
class ControlFrameFloodTest {
  private static final int SETTINGS = 0x4;
  private static final int PING = 0x6;
  private static final int GOAWAY = 0x7;
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int PRIORITY = 0x2;
  private static final int WINDOW_UPDATE = 0x8;
  private static final int FLAG_ACK = 0x1;
  private static final long ENHANCE_YOUR_CALM = 0xb;

  private static EmbeddedChannel server() {
    EmbeddedChannel ch =
        new EmbeddedChannel(H2Handler.build(true, Http2Options.limits(100, 65_535, 8192, false), null));
    ch.freezeTime(); // the bound's 10 s window does not run out while a slow machine feeds it
    ch.writeInbound(Unpooled.wrappedBuffer(Http2CodecUtil.connectionPrefaceBuf()));
    return ch;
  }

  private static ByteBuf frame(int type, int payloadLength) {
    return frame(type, 0, 0, payloadLength);
  }

  static ByteBuf frame(int type, int flags, int streamId, int payloadLength) {
    ByteBuf b = Unpooled.buffer(9 + payloadLength);
    b.writeMedium(payloadLength).writeByte(type).writeByte(flags).writeInt(streamId);
    b.writeZero(payloadLength);
    return b;
  }

  private static ByteBuf windowUpdate(int streamId) {
    return windowUpdate(streamId, 1);
  }

  private static ByteBuf windowUpdate(int streamId, int increment) {
    ByteBuf b = Unpooled.buffer(13);
    b.writeMedium(4).writeByte(WINDOW_UPDATE).writeByte(0).writeInt(streamId).writeInt(increment);
    return b;
  }

  private static ByteBuf priority(int streamId) {
    ByteBuf b = Unpooled.buffer(14);
    b.writeMedium(5).writeByte(PRIORITY).writeByte(0).writeInt(streamId).writeInt(0).writeByte(15);
    return b;
  }

  /** A server whose router opens every request stream and answers nothing (a sink kept). */
  static EmbeddedChannel serverWithOpenStreams(List<io.netty.handler.codec.http2.Http2Stream> opened) {
    H2Handler.Router router =
        (handler, stream, headers, endStream) -> {
          opened.add(stream);
          return new H2Handler.StreamSink() {
            @Override
            public void onHeaders(
                io.netty.handler.codec.http2.Http2Stream s,
                io.netty.handler.codec.http2.Http2Headers h,
                boolean end) {}

            @Override
            public int onData(io.netty.handler.codec.http2.Http2Stream s, ByteBuf data, int padding, boolean end) {
              return data.readableBytes() + padding;
            }

            @Override
            public void onReset(io.netty.handler.codec.http2.Http2Stream s, long errorCode) {}

            @Override
            public void onClosed(io.netty.handler.codec.http2.Http2Stream s) {}
          };
        };
    EmbeddedChannel ch =
        new EmbeddedChannel(H2Handler.build(true, Http2Options.limits(100, 65_535, 8192, false), router));
    ch.freezeTime(); // as in server()
    ch.writeInbound(Unpooled.wrappedBuffer(Http2CodecUtil.connectionPrefaceBuf()));
    ch.writeInbound(frame(SETTINGS, 0));
    return ch;
  }

  /** HEADERS (END_HEADERS) opening a request on {@code streamId}, its fields HPACK-encoded. */
  static ByteBuf request(int streamId) throws Exception {
    io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder encoder =
        new io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder();
    ByteBuf block = Unpooled.buffer();
    encoder.encodeHeaders(
        streamId,
        new io.netty.handler.codec.http2.DefaultHttp2Headers()
            .method("POST").scheme("http").authority("127.0.0.1").path("/x"),
        block);
    ByteBuf b = Unpooled.buffer(9 + block.readableBytes());
    b.writeMedium(block.readableBytes()).writeByte(HEADERS).writeByte(0x4).writeInt(streamId);
    b.writeBytes(block);
    block.release();
    return b;
  }

  /** Every frame the server wrote, as {type, error code (GOAWAY only, else -1), payload length}. */
  static List<long[]> written(EmbeddedChannel ch) {
    List<long[]> frames = new ArrayList<>();
    for (WrittenFrames.Frame f : WrittenFrames.drain(ch)) {
      long code = f.type() == GOAWAY ? f.payloadBuffer().getUnsignedInt(4) : -1;
      frames.add(new long[] {f.type(), code, f.payload().length});
    }
    return frames;
  }

  private static boolean goAwayCalm(List<long[]> frames) {
    return frames.stream().anyMatch(f -> f[0] == GOAWAY && f[1] == ENHANCE_YOUR_CALM);
  }

  @Test
  void theWindowIsTheLoopsClockAndAFreshOneStartsTheCountAgain() {
    EmbeddedChannel ch = server();
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES; i++) {
      ch.writeInbound(frame(SETTINGS, 0));
    }
    ch.advanceTimeBy(11, java.util.concurrent.TimeUnit.SECONDS);
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES; i++) {
      ch.writeInbound(frame(SETTINGS, 0));
    }
    assertThat(goAwayCalm(written(ch))).as("1,000 in each of two windows is no flood").isFalse();
    ch.writeInbound(frame(SETTINGS, 0));
    assertThat(goAwayCalm(written(ch))).as("one more within the second window is").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void aThousandSettingsAreServedOneMoreIsAFlood() {
    EmbeddedChannel ch = server();
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES; i++) {
      ch.writeInbound(frame(SETTINGS, 0));
    }
    List<long[]> first = written(ch);
    assertThat(goAwayCalm(first)).as("GOAWAY(ENHANCE_YOUR_CALM) after the bound").isFalse();
    assertThat(ch.isOpen()).isTrue();
    ch.writeInbound(frame(SETTINGS, 0));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void idlePingsCountTowardsTheSameBound() {
    EmbeddedChannel ch = server();
    ch.writeInbound(frame(SETTINGS, 0));
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(frame(PING, 8));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(frame(PING, 8));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void pingsWhileAStreamIsOpenCountUntilTheServerSendsHeadersOrData() throws Exception {
    List<io.netty.handler.codec.http2.Http2Stream> opened = new ArrayList<>();
    EmbeddedChannel ch = serverWithOpenStreams(opened);
    ch.writeInbound(request(1));
    assertThat(opened).as("the stream is open, unanswered").hasSize(1);
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(frame(PING, 8));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(frame(PING, 8));
    assertThat(goAwayCalm(written(ch)))
        .as("GOAWAY(ENHANCE_YOUR_CALM): PINGs on a connection whose stream got nothing")
        .isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void theServersHeadersOrDataStartTheCountOfPingsAfresh() throws Exception {
    List<io.netty.handler.codec.http2.Http2Stream> opened = new ArrayList<>();
    EmbeddedChannel ch = serverWithOpenStreams(opened);
    ch.writeInbound(request(1));
    H2Handler h = ch.pipeline().get(H2Handler.class);
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
        ch.writeInbound(frame(PING, 8));
      }
      // An answer, as grpc-java's bandwidth probes meet while data flows: the count starts again.
      if (round == 0) {
        h.encoder().writeHeaders(h.ctx(), 1,
            new io.netty.handler.codec.http2.DefaultHttp2Headers().status("200"), 0, false, h.newPromise());
      } else {
        h.encoder().writeData(h.ctx(), 1, Unpooled.wrappedBuffer(new byte[] {1}), 0, false, h.newPromise());
      }
      h.flushNow();
    }
    assertThat(goAwayCalm(written(ch))).as("GOAWAY while the server answers").isFalse();
    assertThat(ch.isOpen()).isTrue();
    ch.finishAndReleaseAll();
  }

  /**
   * One 8 MiB write of the server's to a client whose stream window is 16 KiB and who returns
   * every 4 KiB it reads (stream and connection WINDOW_UPDATEs, as a Go client does): flow control
   * releases the write over 2,048 rounds, 4,096 WINDOW_UPDATEs, with no new write of the
   * application's. Each DATA frame that goes out is an answer: the connection is not cut.
   */
  @Test
  void aLargeWriteReleasedByManyWindowUpdatesIsNoFlood() throws Exception {
    List<io.netty.handler.codec.http2.Http2Stream> opened = new ArrayList<>();
    EmbeddedChannel ch = serverWithOpenStreams(opened);
    int window = 16 * 1024;
    int step = 4 * 1024;
    ByteBuf settings = Unpooled.buffer(15);
    settings.writeMedium(6).writeByte(SETTINGS).writeByte(0).writeInt(0);
    settings.writeShort(0x4).writeInt(window); // SETTINGS_INITIAL_WINDOW_SIZE
    ch.writeInbound(settings);
    ch.writeInbound(request(1));
    assertThat(opened).hasSize(1);
    H2Handler h = ch.pipeline().get(H2Handler.class);
    int total = 8 * 1024 * 1024;
    h.encoder().writeHeaders(h.ctx(), 1,
        new io.netty.handler.codec.http2.DefaultHttp2Headers().status("200"), 0, false, h.newPromise());
    h.encoder().writeData(h.ctx(), 1, Unpooled.wrappedBuffer(new byte[total]), 0, true, h.newPromise());
    h.flushNow();
    long got = 0;
    long unreturned = 0;
    int rounds = 0;
    boolean cut = false;
    int maxRounds = 2 * total / step; // bounded: twice the rounds the write needs
    try {
      while (got < total && rounds++ < maxRounds) {
        for (long[] f : written(ch)) {
          if (f[0] == DATA) {
            got += f[2];
            unreturned += f[2];
          }
          cut |= f[0] == GOAWAY && f[1] == ENHANCE_YOUR_CALM;
        }
        if (cut || got >= total || !ch.isOpen()) {
          break;
        }
        assertThat(unreturned).as("the server wrote nothing more in round %s", rounds).isGreaterThanOrEqualTo(step);
        unreturned -= step;
        ch.writeInbound(Unpooled.wrappedBuffer(windowUpdate(1, step), windowUpdate(0, step)));
      }
      assertThat(cut).as("GOAWAY(ENHANCE_YOUR_CALM) while the server's write went out (after %s bytes)", got).isFalse();
      assertThat(got).as("DATA bytes the client read").isEqualTo(total);
      assertThat(ch.isOpen()).isTrue();
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void settingsAcksCountTowardsTheBound() {
    EmbeddedChannel ch = server();
    ch.writeInbound(frame(SETTINGS, 0));
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(frame(SETTINGS, FLAG_ACK, 0, 0));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(frame(SETTINGS, FLAG_ACK, 0, 0));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void windowUpdatesCountTowardsTheBound() {
    EmbeddedChannel ch = server();
    ch.writeInbound(frame(SETTINGS, 0));
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(windowUpdate(0));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(windowUpdate(0));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void priorityFramesCountTowardsTheBound() {
    EmbeddedChannel ch = server();
    ch.writeInbound(frame(SETTINGS, 0));
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(priority(2 * i + 1));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(priority(2 * H2Handler.MAX_CONTROL_FRAMES - 1));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void unknownFramesCountTowardsTheBound() {
    EmbeddedChannel ch = server();
    ch.writeInbound(frame(SETTINGS, 0));
    for (int i = 0; i < H2Handler.MAX_CONTROL_FRAMES - 1; i++) {
      ch.writeInbound(frame(0x42, 4));
    }
    assertThat(goAwayCalm(written(ch))).isFalse();
    ch.writeInbound(frame(0x42, 4));
    assertThat(goAwayCalm(written(ch))).as("GOAWAY(ENHANCE_YOUR_CALM) one past the bound").isTrue();
    ch.finishAndReleaseAll();
  }
}
