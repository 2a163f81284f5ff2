package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatusMessagesTest {
  @Test
  void plainAsciiIsLeftAlone() {
    assertThat(StatusMessages.encode("no such thing: x/y (1)")).isEqualTo("no such thing: x/y (1)");
  }

  @Test
  void escapesPercentControlsAndNonAsciiAsUtf8() {
    assertThat(StatusMessages.encode("50%")).isEqualTo("50%25");
    assertThat(StatusMessages.encode("a\r\nb\t")).isEqualTo("a%0D%0Ab%09");
    assertThat(StatusMessages.encode("é")).isEqualTo("%C3%A9");
    assertThat(StatusMessages.encode("\uD83D\uDE00")).isEqualTo("%F0%9F%98%80"); // U+1F600, non-BMP
  }

  @Test
  void roundTripsTheInteropSpecialMessage() {
    String m = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP \uD83D\uDE08\t\n";
    String wire = StatusMessages.encode(m);
    for (int i = 0; i < wire.length(); i++) {
      assertThat(wire.charAt(i)).isBetween((char) 0x20, (char) 0x7E);
    }
    assertThat(StatusMessages.decode(wire)).isEqualTo(m);
  }

  @Test
  void decodingIsLenient() {
    assertThat(StatusMessages.decode("100%")).isEqualTo("100%");
    assertThat(StatusMessages.decode("%zz%4")).isEqualTo("%zz%4");
    assertThat(StatusMessages.decode("%c3%a9")).isEqualTo("é");
    assertThat(StatusMessages.decode("%FF")).isEqualTo("\uFFFD");
    assertThat(StatusMessages.decode(null)).isEmpty();
  }
}
