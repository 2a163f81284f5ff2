package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.frame.FrameType;
import org.junit.jupiter.api.Test;

/**
 * What a caller may conclude from a failed request: REJECTED goes on the wire only for the
 * engine's own refusals (never for a handler's exception, which may come after work was done).
 */
class RefusalsEngineTest extends EngineTestBase {

  /**
   * A handler that did something and then failed with a RejectedException (e.g. passing on a
   * downstream refusal): REJECTED would tell the caller it may send the request again elsewhere.
   */
  @Test
  void aHandlersRejectedExceptionGoesOutAsApplicationError() {
    acceptedServer(
        opts().build(),
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            response.error(new RejectedException("downstream: no lease"));
            return StreamListener.DISCARDING;
          }
        });
    transport.inject(Wire.requestResponse(1, null, "insert"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("APPLICATION_ERROR");
    assertThat(e.errorMessage()).isEqualTo("downstream: no lease");
  }

  @Test
  void theEnginesOwnRefusalIsStillRejected() {
    acceptedServer(opts().maxActiveStreams(1).build(), new Producers.Counting(-1));
    transport.inject(Wire.requestStream(1, 1, "held"));
    transport.next(FrameType.PAYLOAD);
    transport.inject(Wire.requestStream(3, 1, "one too many"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(3);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("REJECTED");
  }
}
