package io.sluice.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WellKnownMimeTypeTest {

  @Test
  void idsFromTheExtensionTable() {
    assertThat(WellKnownMimeType.APPLICATION_AVRO.id()).isZero();
    assertThat(WellKnownMimeType.APPLICATION_JSON.id()).isEqualTo(0x05);
    assertThat(WellKnownMimeType.APPLICATION_PROTOBUF.id()).isEqualTo(0x09);
    assertThat(WellKnownMimeType.TEXT_PLAIN.id()).isEqualTo(0x21);
    assertThat(WellKnownMimeType.VIDEO_VP8.id()).isEqualTo(0x25);
    assertThat(WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION.id()).isEqualTo(0x7C);
    assertThat(WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.mimeType()).isEqualTo("message/x.rsocket.routing.v0");
    assertThat(WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.id()).isEqualTo(0x7E);
    assertThat(WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.id()).isEqualTo(0x7F);
  }

  @Test
  void idsAreUniqueAndLookUpsRoundTrip() {
    assertThat(Arrays.stream(WellKnownMimeType.values()).map(WellKnownMimeType::id)).doesNotHaveDuplicates();
    for (WellKnownMimeType t : WellKnownMimeType.values()) {
      assertThat(t.id()).isBetween(0, 127);
      assertThat(WellKnownMimeType.fromId(t.id())).isSameAs(t);
      assertThat(WellKnownMimeType.fromMimeType(t.mimeType())).isSameAs(t);
    }
  }

  @Test
  void reservedAndOutOfRangeIdsAndUnknownStringsAreNull() {
    assertThat(WellKnownMimeType.fromId(0x50)).isNull();
    assertThat(WellKnownMimeType.fromId(-1)).isNull();
    assertThat(WellKnownMimeType.fromId(128)).isNull();
    assertThat(WellKnownMimeType.fromMimeType("text/x.unknown")).isNull();
    assertThat(WellKnownMimeType.fromMimeType(null)).isNull();
  }
}
