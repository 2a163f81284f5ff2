package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.test.Hex;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Buffer bookkeeping for the frame tests: every buffer a test makes goes through {@link #track} and
 * is released after the test, so a failing assertion cannot leak (tests run with paranoid leak
 * detection and io.sluice.test.LeakCheckExtension). Buffers come from the pooled allocator so netty
 * tracks them.
 */
abstract class FrameTestBase {
  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final List<ByteBuf> owned = new ArrayList<>();

  @AfterEach
  void releaseOwnedBuffers() {
    for (ByteBuf b : owned) {
      if (b.refCnt() > 0) {
        b.release(b.refCnt());
      }
    }
    owned.clear();
  }

  /** Registers {@code buf} for release after the test and returns it. */
  final ByteBuf track(ByteBuf buf) {
    owned.add(buf);
    return buf;
  }

  /** An empty buffer to write a frame into. */
  final ByteBuf out() {
    return track(ALLOC.buffer());
  }

  /** A buffer holding {@code text} as UTF-8. */
  final ByteBuf utf8(String text) {
    return track(ALLOC.buffer().writeBytes(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** A buffer holding the bytes of a hex vector. */
  final ByteBuf fromHex(String hex) {
    return bytes(Hex.decode(hex));
  }

  /** A buffer holding {@code bytes}, with capacity equal to its length (over-reads throw). */
  final ByteBuf bytes(byte[] bytes) {
    ByteBuf buf = track(ALLOC.heapBuffer(bytes.length, bytes.length));
    return buf.writeBytes(bytes);
  }

  /**
   * Copies {@code frame} into a new buffer between junk bytes, with the reader index at the frame's
   * start and the writer index at its end: readers must work from the indexes, not from 0 or the
   * capacity.
   */
  final ByteBuf embedded(ByteBuf frame) {
    int before = 5;
    int after = 7;
    ByteBuf buf = track(ALLOC.buffer(before + frame.readableBytes() + after));
    for (int i = 0; i < before; i++) {
      buf.writeByte(0xEE);
    }
    buf.writeBytes(frame, frame.readerIndex(), frame.readableBytes());
    int end = buf.writerIndex();
    for (int i = 0; i < after; i++) {
      buf.writeByte(0xEE);
    }
    return buf.setIndex(before, end);
  }

  static String hex(ByteBuf buf) {
    return Hex.encode(buf);
  }

  static String str(ByteBuf buf) {
    return buf == null ? null : buf.toString(StandardCharsets.UTF_8);
  }

  static void assertHex(ByteBuf frame, String expectedHex) {
    assertThat(hex(frame)).isEqualTo(Hex.normalize(expectedHex));
  }
}
