package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeadersBinaryTest {
  @Test
  void binaryValuesRoundTripAsUnpaddedBase64() {
    byte[] v = {0, 1, (byte) 0xFE, (byte) 0xFF};
    Headers h = Headers.builder().addBinary("trace-bin", v).add("plain", "x").build();
    assertThat(h.get("trace-bin")).isEqualTo("AAH+/w");
    assertThat(h.getBinary("trace-bin")).isEqualTo(v);
    assertThat(h.getBinary("missing-bin")).isNull();
    assertThat(h.getAllBinary("trace-bin")).containsExactly(v);
  }

  @Test
  void paddedBase64IsAcceptedAsText() {
    Headers h = Headers.of("k-bin", "AAH+/w==");
    assertThat(h.getBinary("k-bin")).containsExactly(0, 1, 0xFE, 0xFF);
  }

  @Test
  void binaryKeysMustEndInBinAndHoldBase64() {
    assertThatThrownBy(() -> Headers.builder().addBinary("trace", new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-bin");
    assertThatThrownBy(() -> Headers.of("x", "1").getBinary("x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Headers.of("k-bin", "not base64!"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("base64");
    assertThatThrownBy(() -> Headers.of("k-bin", "A"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Headers.of("k-bin", "AA="))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void binaryValuesAreBounded() {
    Headers.builder().addBinary("k-bin", new byte[Headers.MAX_BINARY_LENGTH]);
    assertThatThrownBy(() -> Headers.builder().addBinary("k-bin", new byte[Headers.MAX_BINARY_LENGTH + 1]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
