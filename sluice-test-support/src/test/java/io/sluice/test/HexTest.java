package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class HexTest {
  @Test
  void decodesIgnoringSeparators() {
    assertThat(Hex.decode("00 01_ff:7F\n80")).containsExactly(0x00, 0x01, 0xFF, 0x7F, 0x80);
    assertThat(Hex.decode("")).isEmpty();
  }

  @Test
  void encodesLowerCase() {
    assertThat(Hex.encode(new byte[] {0, 1, (byte) 0xAB, 0x7f})).isEqualTo("0001ab7f");
    assertThat(Hex.normalize("AB CD")).isEqualTo("abcd");
  }

  @Test
  void encodesReadableBytesWithoutMovingIndexes() {
    ByteBuf buf = Unpooled.buffer().writeBytes(new byte[] {1, 2, 3});
    try {
      buf.readByte();
      assertThat(Hex.encode(buf)).isEqualTo("0203");
      assertThat(buf.readerIndex()).isEqualTo(1);
    } finally {
      buf.release();
    }
  }

  @Test
  void rejectsBadInput() {
    assertThatThrownBy(() -> Hex.decode("abc")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Hex.decode("zz")).isInstanceOf(IllegalArgumentException.class);
  }
}
