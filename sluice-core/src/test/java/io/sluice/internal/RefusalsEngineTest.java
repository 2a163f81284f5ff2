package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import org.junit.jupiter.api.Test;

/**
 * What a caller may conclude from a failed request: REJECTED goes on the wire only for the
 * engine's own refusals (never for a handler's exception, which may come after work was done), a
 * request this side refused before any of it left says so ({@link
 * SluiceException#requestNotSent()}) however it reached the loop, and a peer that goes away
 * without a word is a failure, not a clean close.
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

  /** A handler that promises it did no work (its own load shedding) keeps REJECTED, retryable. */
  @Test
  void aHandlersUnprocessedRefusalGoesOutAsRejected() {
    acceptedServer(
        opts().build(),
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            response.error(RejectedException.unprocessed("shedding load"));
            return StreamListener.DISCARDING;
          }
        });
    transport.inject(Wire.requestResponse(1, null, "insert"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("REJECTED");
    assertThat(e.errorMessage()).isEqualTo("shedding load");
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

  /**
   * A request handed over from another thread while the connection is draining is refused from
   * the command queue, not inline: it still says it was never sent.
   */
  @Test
  void aRequestRefusedFromTheQueueSaysItWasNotSent() {
    client(opts().build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("live"), 1, live));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_CLOSE, "the server drains"));
    Loop.settle(loop);
    Recorder refused = new Recorder();
    conn.requestResponse(msg("late"), refused); // from the test's thread: through the queue
    Throwable e = refused.take("error").error();
    assertThat(e).isInstanceOf(ConnectionCloseException.class);
    assertThat(((SluiceException) e).requestNotSent()).isTrue();
    transport.assertNothingSent();
  }

  @Test
  void requestsRefusedOnAClosedConnectionOrBeyondTheStreamLimitSayTheyWereNotSent() {
    client(opts().maxActiveStreams(1).build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("live"), 1, live));
    transport.next(FrameType.REQUEST_STREAM);
    Recorder tooMany = new Recorder();
    conn.requestStream(msg("too many"), 1, tooMany);
    Throwable limit = tooMany.take("error").error();
    assertThat(limit).isInstanceOf(RejectedException.class);
    assertThat(((SluiceException) limit).requestNotSent()).isTrue();

    Loop.run(loop, () -> conn.dispose());
    Recorder closed = new Recorder();
    conn.fireAndForget(msg("after"), closed);
    Throwable c = closed.take("error").error();
    assertThat(c).isInstanceOf(ConnectionErrorException.class);
    assertThat(((SluiceException) c).requestNotSent()).isTrue();
  }

  @Test
  void aRequestWithoutALeaseSaysItWasNotSent() {
    client(opts().lease(true).build());
    Recorder r = new Recorder();
    conn.requestResponse(msg("no lease yet"), r);
    Throwable e = r.take("error").error();
    assertThat(e).isInstanceOf(RejectedException.class);
    assertThat(((SluiceException) e).requestNotSent()).isTrue();
  }

  /** What the peer answers, and a connection lost after sending, may have been processed. */
  @Test
  void failuresAfterSendingDoNotSayNotSent() {
    client(opts().build());
    Recorder rejected = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("a"), rejected));
    int id = transport.next(FrameType.REQUEST_RESPONSE).streamId();
    transport.inject(Wire.error(id, ErrorCode.REJECTED, "busy"));
    Throwable r = rejected.take("error").error();
    assertThat(r).isInstanceOf(RejectedException.class);
    assertThat(((SluiceException) r).requestNotSent()).isFalse();

    Recorder lost = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("b"), lost));
    transport.next(FrameType.REQUEST_RESPONSE);
    transport.peerClosed();
    Throwable l = lost.take("error").error();
    assertThat(l).isInstanceOf(ConnectionErrorException.class);
    assertThat(((SluiceException) l).requestNotSent()).isFalse();
  }

  /** A peer that closes the socket without CONNECTION_CLOSE (a crash, a full server): a failure. */
  @Test
  void aPeerClosingWithoutAWordFailsOnClose() {
    client(opts().build());
    transport.peerClosed();
    assertThat(Loop.awaitOutcome(conn.onClose()))
        .isInstanceOf(ConnectionErrorException.class)
        .hasMessageContaining("closed by the peer");
  }

  /** The peer announced its close (CONNECTION_CLOSE) and then closed: a clean end. */
  @Test
  void aPeerClosingAfterItsConnectionCloseIsClean() {
    client(opts().build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("live"), 1, live));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_CLOSE, "bye"));
    Loop.settle(loop);
    transport.peerClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }
}
