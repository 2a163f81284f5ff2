package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every frame length is checked where it is written: the u24 length of a byte stream cannot wrap.
 * An ERROR (which cannot be fragmented) is cut to fit; any other frame too large for the u24
 * length is refused before a byte of it is written.
 */
class FrameLengthEngineTest extends EngineTestBase {

  /** Answers "ok" with "ok"; fails anything else with an ERROR whose data is 17 MiB and more. */
  private static final Responder ERRORS =
      new Responder() {
        @Override
        public StreamListener requestResponse(Message request, StreamHandle response) {
          String what = request.dataUtf8();
          request.release();
          if (what.equals("ok")) {
            response.nextAndComplete(Message.of(Wire.utf8("ok")));
          } else {
            response.error(new ApplicationErrorException("\u00e9" + "x".repeat(17 << 20) + "\uD83D\uDE08"));
          }
          return StreamListener.DISCARDING;
        }
      };

  @ParameterizedTest
  @ValueSource(ints = {64 * 1024, 0xFFFFFF})
  void anErrorTooLargeForOneFrameIsCutToFitAndTheNextFrameIsWhole(int maxFrameSize) {
    server(opts().maxFrameSize(maxFrameSize).build(), ERRORS, Framing.LENGTH_PREFIXED);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestResponse(1, null, "huge"), Wire.requestResponse(3, null, "ok"));
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isEqualTo(1);
    assertThat(error.size()).isLessThanOrEqualTo(maxFrameSize);
    assertThat(error.size()).isGreaterThan(maxFrameSize - 8); // cut to fit, not dropped
    assertThat(error.errorMessage()).startsWith("\u00e9xxx").doesNotContain("\uFFFD");
    Wire.Sent ok = transport.next(FrameType.PAYLOAD);
    assertThat(ok.streamId()).isEqualTo(3);
    assertThat(ok.dataUtf8()).isEqualTo("ok");
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void aSetupTooLargeForTheU24LengthIsRefusedAndItsPayloadReleased() {
    transport = new FakeTransport(loop, Framing.LENGTH_PREFIXED);
    Message payload = Message.of(Wire.bytes(new byte[Frames.MAX_FRAME_SIZE]));
    ClientSetup setup = ClientSetup.of("application/binary", "application/binary", payload);
    assertThatThrownBy(
            () -> Loop.call(loop, () -> SluiceConnection.client(transport, opts().build(), setup, r -> new Responder() {})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("larger than the largest frame");
    assertThat(payload.refCnt()).isZero();
    Loop.settle(loop);
    transport.assertNothingSent();
  }

  @Test
  void aU24LengthThatWouldWrapIsRefused() {
    io.netty.buffer.ByteBuf b = Wire.ALLOC.buffer(3);
    try {
      Frames.writeU24(b, 0xFFFFFF);
      assertThat(b.getUnsignedMedium(0)).isEqualTo(0xFFFFFF);
      assertThatThrownBy(() -> Frames.writeU24(b, 0x1000000)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> Frames.writeU24(b, -1)).isInstanceOf(IllegalArgumentException.class);
    } finally {
      b.release();
    }
  }

  @Test
  void truncateUtf8KeepsCharactersWhole() {
    assertThat(Frames.truncateUtf8("abc", 3)).isEqualTo("abc");
    assertThat(Frames.truncateUtf8("abc", 2)).isEqualTo("ab");
    assertThat(Frames.truncateUtf8("a\u00e9", 2)).isEqualTo("a");
    assertThat(Frames.truncateUtf8("a\uD83D\uDE08", 4)).isEqualTo("a");
    assertThat(Frames.truncateUtf8("a\uD83D\uDE08", 5)).isEqualTo("a\uD83D\uDE08");
  }
}
