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
 * A server's bound on SETTINGS and idle PING frames ({@link H2Handler#MAX_CONTROL_FRAMES} per
 * 10 s): the frames are fed to the server's handler on an embedded channel, and what it writes
 * back is read frame by frame.
 */
class ControlFrameFloodTest {
  private static final int SETTINGS = 0x4;
  private static final int PING = 0x6;
  private static final int GOAWAY = 0x7;
  private static final long ENHANCE_YOUR_CALM = 0xb;

  private static EmbeddedChannel server() {
    EmbeddedChannel ch =
        new EmbeddedChannel(H2Handler.build(true, Http2Options.limits(100, 65_535, 8192, false), null));
    ch.writeInbound(Unpooled.wrappedBuffer(Http2CodecUtil.connectionPrefaceBuf()));
    return ch;
  }

  private static ByteBuf frame(int type, int payloadLength) {
    ByteBuf b = Unpooled.buffer(9 + payloadLength);
    b.writeMedium(payloadLength).writeByte(type).writeByte(0).writeInt(0);
    b.writeZero(payloadLength);
    return b;
  }

  /** Every frame the server wrote, as {type, error code (GOAWAY only, else -1)}. */
  private static List<long[]> written(EmbeddedChannel ch) {
    ByteBuf all = Unpooled.buffer();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      all.writeBytes(b);
      b.release();
    }
    List<long[]> frames = new ArrayList<>();
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readUnsignedByte();
      all.skipBytes(5);
      long code = type == GOAWAY ? all.getUnsignedInt(all.readerIndex() + 4) : -1;
      all.skipBytes(length);
      frames.add(new long[] {type, code});
    }
    all.release();
    return frames;
  }

  private static boolean goAwayCalm(List<long[]> frames) {
    return frames.stream().anyMatch(f -> f[0] == GOAWAY && f[1] == ENHANCE_YOUR_CALM);
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
}
