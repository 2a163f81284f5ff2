package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Type codes and classifications against the spec's frame type table. */
class FrameTypeTest {

  @Test
  void codesMatchTheSpec() {
    assertThat(FrameType.RESERVED).isEqualTo(0x00);
    assertThat(FrameType.SETUP).isEqualTo(0x01);
    assertThat(FrameType.LEASE).isEqualTo(0x02);
    assertThat(FrameType.KEEPALIVE).isEqualTo(0x03);
    assertThat(FrameType.REQUEST_RESPONSE).isEqualTo(0x04);
    assertThat(FrameType.REQUEST_FNF).isEqualTo(0x05);
    assertThat(FrameType.REQUEST_STREAM).isEqualTo(0x06);
    assertThat(FrameType.REQUEST_CHANNEL).isEqualTo(0x07);
    assertThat(FrameType.REQUEST_N).isEqualTo(0x08);
    assertThat(FrameType.CANCEL).isEqualTo(0x09);
    assertThat(FrameType.PAYLOAD).isEqualTo(0x0A);
    assertThat(FrameType.ERROR).isEqualTo(0x0B);
    assertThat(FrameType.METADATA_PUSH).isEqualTo(0x0C);
    assertThat(FrameType.RESUME).isEqualTo(0x0D);
    assertThat(FrameType.RESUME_OK).isEqualTo(0x0E);
    assertThat(FrameType.EXT).isEqualTo(0x3F);
  }

  @Test
  void classifications() {
    for (int type = 0; type < 64; type++) {
      boolean metadataLength =
          type == FrameType.SETUP
              || (type >= FrameType.REQUEST_RESPONSE && type <= FrameType.REQUEST_CHANNEL)
              || type == FrameType.PAYLOAD
              || type == FrameType.EXT;
      boolean request = type >= FrameType.REQUEST_RESPONSE && type <= FrameType.REQUEST_CHANNEL;
      boolean stream0Only =
          type == FrameType.SETUP
              || type == FrameType.LEASE
              || type == FrameType.KEEPALIVE
              || type == FrameType.METADATA_PUSH
              || type == FrameType.RESUME
              || type == FrameType.RESUME_OK;
      assertThat(FrameType.hasMetadataLength(type))
          .as("hasMetadataLength(0x%x)", type)
          .isEqualTo(metadataLength);
      assertThat(FrameType.isRequest(type)).as("isRequest(0x%x)", type).isEqualTo(request);
      assertThat(FrameType.isConnectionScoped(type))
          .as("isConnectionScoped(0x%x)", type)
          .isEqualTo(stream0Only);
    }
  }

  @Test
  void names() {
    assertThat(FrameType.name(FrameType.SETUP)).isEqualTo("SETUP");
    assertThat(FrameType.name(FrameType.REQUEST_CHANNEL)).isEqualTo("REQUEST_CHANNEL");
    assertThat(FrameType.name(FrameType.METADATA_PUSH)).isEqualTo("METADATA_PUSH");
    assertThat(FrameType.name(FrameType.EXT)).isEqualTo("EXT");
    assertThat(FrameType.name(0x10)).isEqualTo("UNKNOWN(0x10)");
    assertThat(FrameType.name(FrameType.RESERVED)).isEqualTo("UNKNOWN(0x0)");
  }
}
