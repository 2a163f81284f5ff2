package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.transport.FramePrefix;

/**
 * A transport prefix for {@link FakeTransport} shaped like a WebSocket client's header: its length
 * depends on the frame's (6, 7 or 8 bytes) and is always longer than the u24 length. A marker byte
 * {@code 0xA0 | n} with n = 1, 2 or 3 bytes of frame length, then the length, then 4 filler bytes
 * (where a WebSocket client's masking key goes).
 */
final class TestFramePrefix implements FramePrefix {
  static final int MARKER = 0xA0;
  static final int FILLER = 0xEEEEEEEE;

  @Override
  public int maxLength() {
    return 8;
  }

  /** Bytes of the prefix of a frame of {@code frameLength} bytes. */
  static int length(int frameLength) {
    return 1 + lengthBytes(frameLength) + 4;
  }

  private static int lengthBytes(int frameLength) {
    return frameLength < 256 ? 1 : frameLength < 65536 ? 2 : 3;
  }

  @Override
  public void write(ByteBuf out, int frameLength) {
    assertThat(frameLength).as("frame length").isBetween(0, 0xFFFFFF);
    int n = lengthBytes(frameLength);
    out.writeByte(MARKER | n);
    switch (n) {
      case 1:
        out.writeByte(frameLength);
        break;
      case 2:
        out.writeShort(frameLength);
        break;
      default:
        out.writeMedium(frameLength);
    }
    out.writeInt(FILLER);
  }

  /** The prefix's length at {@code index} of {@code buf} (which must hold its first byte). */
  static int prefixLengthAt(ByteBuf buf, int index) {
    int b = buf.getUnsignedByte(index);
    assertThat(b & 0xF0).as("prefix marker at %s", index).isEqualTo(MARKER);
    int n = b & 0x0F;
    assertThat(n).as("length bytes").isBetween(1, 3);
    return 1 + n + 4;
  }

  /** The frame length in the whole prefix at {@code index}; checks the filler too. */
  static int frameLengthAt(ByteBuf buf, int index) {
    int n = buf.getUnsignedByte(index) & 0x0F;
    int length =
        n == 1
            ? buf.getUnsignedByte(index + 1)
            : n == 2 ? buf.getUnsignedShort(index + 1) : buf.getUnsignedMedium(index + 1);
    assertThat(lengthBytes(length)).as("shortest length encoding").isEqualTo(n);
    assertThat(buf.getInt(index + 1 + n)).as("filler").isEqualTo(FILLER);
    return length;
  }
}
