package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Which recorded HEADERS frames {@link AnswerBlocks} keeps: indexed fields only, whole, in bounds. */
class AnswerBlocksTest {
  private static final int END_HEADERS = 0x4;
  private static final int END_STREAM = 0x1;

  /** What is kept of a frame of these fields recorded for stream 3 (END_STREAM expected as flagged). */
  private static byte[] kept(int length, int type, int flags, int id, int... block) {
    return kept(frame(length, type, flags, id, block), (flags & END_STREAM) != 0);
  }

  private static byte[] kept(ByteBuf frame, boolean endStream) {
    try {
      return AnswerBlocks.indexedOnly(frame, 3, endStream);
    } finally {
      frame.release();
    }
  }

  private static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  @Test
  void keepsABlockOfIndexedFields() {
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0xbe)).isEqualTo(bytes(0x88, 0xbe));
    assertThat(kept(1, 1, END_HEADERS | END_STREAM, 3, 0xbf)).isEqualTo(bytes(0xbf));
    // index 127 + 5 + 128: a 7-bit prefix full, then two groups
    assertThat(kept(4, 1, END_HEADERS, 3, 0x88, 0xff, 0x85, 0x01)).isEqualTo(bytes(0x88, 0xff, 0x85, 0x01));
  }

  @Test
  void keepsNoBlockThatCouldChangeTheTableOrIsNotOneWholeFrame() {
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0x40)).as("literal with indexing").isNull();
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0x0f)).as("literal without indexing").isNull();
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0x1f)).as("never indexed").isNull();
    assertThat(kept(2, 1, END_HEADERS, 3, 0x20, 0x88)).as("table size update").isNull();
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0xff)).as("an index cut short").isNull();
    assertThat(kept(3, 1, END_HEADERS, 3, 0x88, 0xff, 0x85)).as("an index cut short").isNull();
    assertThat(kept(2, 1, 0, 3, 0x88, 0xbe)).as("no END_HEADERS: CONTINUATION follows").isNull();
    assertThat(kept(2, 1, END_HEADERS, 3, 0x88, 0xbe)).isNotNull();
    assertThat(kept(frame(2, 1, END_HEADERS, 3, 0x88, 0xbe), true)).as("trailers without END_STREAM").isNull();
    assertThat(kept(frame(2, 1, END_HEADERS | END_STREAM, 3, 0x88, 0xbe), false)).as("headers with END_STREAM").isNull();
    assertThat(kept(2, 1, END_HEADERS | 0x8, 3, 0x88, 0xbe)).as("padded").isNull();
    assertThat(kept(2, 1, END_HEADERS | 0x20, 3, 0x88, 0xbe)).as("priority").isNull();
    assertThat(kept(2, 9, END_HEADERS, 3, 0x88, 0xbe)).as("CONTINUATION").isNull();
    assertThat(kept(3, 1, END_HEADERS, 3, 0x88, 0xbe)).as("length not the block's").isNull();
    assertThat(kept(2, 1, END_HEADERS, 0, 0x88, 0xbe)).as("another stream").isNull();
    assertThat(kept(0, 1, END_HEADERS, 3)).as("empty").isNull();
    int[] long17 = new int[AnswerBlocks.MAX_BLOCK + 1];
    java.util.Arrays.fill(long17, 0x88);
    assertThat(kept(long17.length, 1, END_HEADERS, 3, long17)).as("longer than the room").isNull();
    int[] long16 = java.util.Arrays.copyOf(long17, AnswerBlocks.MAX_BLOCK);
    assertThat(kept(long16.length, 1, END_HEADERS, 3, long16)).hasSize(AnswerBlocks.MAX_BLOCK);
  }

  private static ByteBuf frame(int length, int type, int flags, int id, int... block) {
    ByteBuf frame = Unpooled.buffer();
    frame.writeMedium(length).writeByte(type).writeByte(flags).writeInt(id);
    for (int b : block) {
      frame.writeByte(b);
    }
    return frame;
  }
}
