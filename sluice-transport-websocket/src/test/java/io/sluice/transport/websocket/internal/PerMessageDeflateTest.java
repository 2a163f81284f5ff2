package io.sluice.transport.websocket.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Deflater;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * permessage-deflate's inflation against messages made here with the JDK's zlib as another
 * implementation may make them: ending in a block with BFINAL set (RFC 7692 7.2.3.4), with the
 * sender keeping its window across messages (context takeover) or not.
 */
class PerMessageDeflateTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
  private static final int MAX = 1 << 20;

  private final PerMessageDeflate keepsContext = new PerMessageDeflate(true, false);
  private final PerMessageDeflate resets = new PerMessageDeflate(true, true);

  @AfterEach
  void close() {
    keepsContext.close();
    resets.close();
  }

  /** {@code text} deflated (raw) with {@code dictionary} as the window, ended by a final block. */
  private static byte[] finalBlock(String text, byte[] dictionary) {
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    try {
      if (dictionary != null) {
        d.setDictionary(dictionary);
      }
      d.setInput(text.getBytes(StandardCharsets.UTF_8));
      d.finish();
      byte[] out = new byte[1024];
      int n = d.deflate(out);
      assertThat(d.finished()).isTrue();
      return Arrays.copyOf(out, n);
    } finally {
      d.end();
    }
  }

  /** RFC 7692 7.2.3.4's form: the final block, then one byte: an empty stored block's header. */
  private static byte[] withPadding(byte[] block) {
    byte[] out = Arrays.copyOf(block, block.length + 1);
    out[block.length] = 0;
    return out;
  }

  private static String inflate(PerMessageDeflate d, byte[] message) {
    ByteBuf out = d.inflate(ALLOC, Unpooled.wrappedBuffer(message), MAX);
    try {
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
    }
  }

  /** RFC 7692 7.2.3.4's example: "Hello" in a final block, then the padding byte. */
  @Test
  void theRfcExampleOfAFinalBlockInflates() {
    byte[] example = {(byte) 0xf3, 0x48, (byte) 0xcd, (byte) 0xc9, (byte) 0xc9, 0x07, 0x00, 0x00};
    assertThat(inflate(keepsContext, example)).isEqualTo("Hello");
    assertThat(inflate(resets, example)).isEqualTo("Hello");
  }

  /**
   * With context takeover, a message after one that ended in a final block is still inflated,
   * and with the window the earlier messages left: the second message here refers back to the
   * first one's text.
   */
  @Test
  void aMessageAfterAFinalBlockInflatesWithTheWindowKept() {
    String first = "the quick brown fox jumps over the lazy dog";
    String second = "the quick brown fox jumps over the lazy dog, again";
    byte[] window = first.getBytes(StandardCharsets.UTF_8);
    for (boolean padded : new boolean[] {true, false}) {
      PerMessageDeflate d = new PerMessageDeflate(true, false);
      try {
        byte[] m1 = finalBlock(first, null);
        byte[] m2 = finalBlock(second, window);
        assertThat(inflate(d, padded ? withPadding(m1) : m1)).isEqualTo(first);
        assertThat(inflate(d, padded ? withPadding(m2) : m2)).as("padded %s", padded).isEqualTo(second);
        // And a third that ends as usual (sync flush, no final block), referring back too.
        assertThat(inflate(d, syncFlushed(second + "!", (first + second).getBytes(StandardCharsets.UTF_8))))
            .isEqualTo(second + "!");
      } finally {
        d.close();
      }
    }
  }

  /** {@code text} deflated (raw) with {@code dictionary}, sync-flushed, without 00 00 FF FF. */
  private static byte[] syncFlushed(String text, byte[] dictionary) {
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    try {
      d.setDictionary(dictionary);
      d.setInput(text.getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[1024];
      int n = d.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
      assertThat(n).isGreaterThan(4);
      return Arrays.copyOf(out, n - 4);
    } finally {
      d.end();
    }
  }

  /** Messages longer than the window: what is kept is the last 32 KiB of what was inflated. */
  @Test
  void theWindowKeptIsTheLast32KiB() {
    java.util.Random random = new java.util.Random(42);
    StringBuilder b = new StringBuilder();
    while (b.length() < 50_000) {
      b.append(Character.forDigit(random.nextInt(16), 16)); // barely compressible
    }
    String big = b.toString();
    byte[] bigBytes = big.getBytes(StandardCharsets.UTF_8);
    byte[] tail = Arrays.copyOfRange(bigBytes, bigBytes.length - 32768, bigBytes.length);
    String next = big.substring(big.length() - 20_000, big.length() - 10_000);
    Deflater sender = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    byte[] m1;
    try {
      sender.setInput(bigBytes);
      sender.finish();
      byte[] out = new byte[bigBytes.length + 1024];
      int n = sender.deflate(out);
      assertThat(sender.finished()).isTrue();
      m1 = Arrays.copyOf(out, n);
    } finally {
      sender.end();
    }
    assertThat(inflate(keepsContext, m1).equals(big)).as("the first message inflated").isTrue();
    String second = inflate(keepsContext, finalBlock(next, tail));
    assertThat(second.length()).isEqualTo(next.length());
    assertThat(second.equals(next)).as("the second message inflated over the window").isTrue();
  }

  /** Without context takeover every message starts afresh, a final block or not. */
  @Test
  void withoutContextTakeoverEachMessageStandsAlone() {
    assertThat(inflate(resets, finalBlock("one", null))).isEqualTo("one");
    assertThat(inflate(resets, finalBlock("two", null))).isEqualTo("two");
    assertThat(inflate(resets, withPadding(finalBlock("three", null)))).isEqualTo("three");
  }
}
