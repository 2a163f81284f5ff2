package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.internal.frame.FrameType;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.internal.frame.Frames;
import io.sluice.test.ManualClockLoop;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Graceful close (CONNECTION_CLOSE, drain, close) and immediate dispose. The connection runs on a
 * {@link ManualClockLoop}: the drain timeout fires when the test moves the clock, never because the
 * machine was slow.
 */
class GracefulCloseEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  @Test
  void closeSendsConnectionCloseDrainsLiveStreamsThenCloses() {
    client(opts().build());
    Recorder stream = new Recorder();
    Recorder response = new Recorder();
    StreamHandle sh =
        Loop.call(
            loop,
            () -> {
              conn.requestResponse(msg("rr"), response);
              return conn.requestStream(msg("rs"), 2, stream);
            });
    transport.next(FrameType.REQUEST_RESPONSE);
    transport.next(FrameType.REQUEST_STREAM);

    conn.close();
    Wire.Sent close = transport.next(FrameType.ERROR);
    assertThat(close.streamId()).isZero();
    assertThat(ErrorCode.name(close.errorCode())).isEqualTo("CONNECTION_CLOSE");
    assertThat(Loop.call(loop, conn::isOpen)).isFalse();

    // New local requests are refused without touching the wire.
    Recorder refused = new Recorder();
    Message m = msg("late");
    conn.requestResponse(m, refused);
    assertThat(refused.take("error").error()).isInstanceOf(ConnectionCloseException.class);
    assertThat(m.refCnt()).isZero();
    Recorder refusedFnf = new Recorder();
    conn.fireAndForget(msg("late fnf"), refusedFnf);
    assertThat(refusedFnf.take("error").error()).isInstanceOf(ConnectionCloseException.class);
    // New requests from the peer are REJECTED.
    transport.inject(Wire.requestResponse(2, null, "peer's late request"));
    Wire.Sent rejected = transport.next(FrameType.ERROR);
    assertThat(rejected.streamId()).isEqualTo(2);
    assertThat(ErrorCode.name(rejected.errorCode())).isEqualTo("REJECTED");
    transport.assertNothingSent();

    // In-flight streams go on: demand, items, completion. The request-response is stream 1, the
    // request-stream stream 3.
    sh.request(1);
    Wire.Sent n = transport.next(FrameType.REQUEST_N);
    assertThat(n.streamId()).isEqualTo(3);
    assertThat(n.requestN()).isEqualTo(1);
    transport.inject(Wire.next(1, "r1"), Wire.next(3, "s1"));
    assertThat(response.take("next").data()).isEqualTo("r1");
    response.take("complete");
    assertThat(stream.take("next").data()).isEqualTo("s1");
    Loop.settle(loop);
    assertThat(transport.isClosed()).as("the stream is still live").isFalse();
    transport.inject(Wire.next(3, "s2"), Wire.complete(3));
    assertThat(stream.take("next").data()).isEqualTo("s2");
    stream.take("complete");
    // Both finished: the connection closes by itself.
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }

  @Test
  void closeWithNoLiveStreamsClosesAtOnce() {
    client(opts().build());
    conn.close();
    Wire.Sent close = transport.next(FrameType.ERROR);
    assertThat(close.errorCode()).isEqualTo(ErrorCode.CONNECTION_CLOSE);
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
    transport.assertNothingSent();
  }

  @Test
  void drainTimeoutCutsStreamsThatNeverFinish() {
    client(opts().drainTimeout(Duration.ofMillis(100)).build());
    Recorder stuck = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("never ends"), 1, stuck));
    transport.next(FrameType.REQUEST_STREAM);
    conn.close();
    assertThat(transport.next(FrameType.ERROR).errorCode()).isEqualTo(ErrorCode.CONNECTION_CLOSE);
    Loop.settle(loop); // the close has run to its end: the drain timeout is set
    clock().advanceMillis(99);
    assertThat(transport.isClosed()).as("closed before the drain timeout").isFalse();
    assertThat(stuck.all).as("the stuck stream's signals before the drain timeout").isEmpty();
    clock().advanceMillis(1);
    transport.awaitClosed();
    Ev e = stuck.take("error");
    assertThat(e.error()).isInstanceOf(ConnectionCloseException.class);
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }

  @Test
  void serverCloseLetsItsResponderStreamsFinishAndSendsTheirLastFramesFirst() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 5, "s"), Wire.requestChannel(3, 5, "c", false));
    StreamHandle s = producer.handle();
    StreamHandle c = producer.handle();
    conn.close();
    assertThat(transport.next(FrameType.ERROR).errorCode()).isEqualTo(ErrorCode.CONNECTION_CLOSE);
    s.next(msg("one"));
    s.complete();
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("one");
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_COMPLETE)).isTrue();
    assertThat(transport.isClosed()).isFalse();
    // The channel: both halves must end.
    c.nextAndComplete(msg("two"));
    Wire.Sent two = transport.next(FrameType.PAYLOAD);
    assertThat(two.has(Frames.FLAG_COMPLETE)).isTrue();
    Loop.settle(loop);
    assertThat(transport.isClosed()).as("channel inbound still open").isFalse();
    transport.inject(Wire.complete(3));
    transport.awaitClosed();
    transport.assertNothingSent();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }

  @Test
  void peerConnectionCloseDrainsThenCloses() {
    client(opts().build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("q"), live));
    transport.next(FrameType.REQUEST_RESPONSE);
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_CLOSE, "server going away"));
    assertThat(Loop.call(loop, conn::isOpen)).isFalse();
    Recorder refused = new Recorder();
    conn.requestResponse(msg("new"), refused);
    assertThat(refused.take("error").error()).isInstanceOf(ConnectionCloseException.class);
    transport.assertNothingSent();
    assertThat(transport.isClosed()).isFalse();
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "a"));
    assertThat(live.take("next").data()).isEqualTo("a");
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }

  @Test
  void disposeFailsLiveStreamsAtOnce() {
    client(opts().build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("q"), 1, live));
    transport.next(FrameType.REQUEST_STREAM);
    conn.dispose();
    transport.awaitClosed();
    assertThat(live.take("error").error()).isInstanceOf(ConnectionErrorException.class);
    assertThat(Loop.call(loop, conn::isOpen)).isFalse();
    Loop.awaitOutcome(conn.onClose());
    // Anything after dispose is refused and released.
    Message m = msg("after");
    Recorder after = new Recorder();
    conn.requestStream(m, 1, after);
    assertThat(after.take("error").error()).isInstanceOf(ConnectionErrorException.class);
    assertThat(m.refCnt()).isZero();
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).isEmpty();
  }

  /**
   * The connection closes while a responder method runs (as when a handler started at once queues
   * work that closes it): the listener it then returns still learns that its stream failed.
   */
  @Test
  void aStreamThatFailsWhileItsResponderRunsTellsTheListenerItReturns() {
    Recorder inbound = new Recorder();
    acceptedServer(
        opts().build(),
        new io.sluice.Responder() {
          @Override
          public io.sluice.StreamListener requestChannel(
              Message first, boolean inboundComplete, StreamHandle channel) {
            first.release();
            conn.dispose(); // on the loop: fails every stream now, this one included
            return inbound;
          }
        });
    transport.inject(Wire.requestChannel(1, 1, "c", false));
    assertThat(inbound.take("error").error()).isInstanceOf(ConnectionErrorException.class);
    transport.awaitClosed();
  }

  @Test
  void peerClosingTheTransportFailsLiveStreamsAndTellsTheResponder() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 1, "s"));
    producer.take();
    transport.peerClosed();
    assertThat(producer.take()).startsWith("error:").contains("ConnectionErrorException");
    assertThat(producer.take()).startsWith("close:");
    Loop.awaitOutcome(conn.onClose());
  }

  @Test
  void closeBeforeSetupClosesAtOnce() {
    server(opts().build(), new Producers.Counting(-1));
    conn.close();
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isNull();
  }

  @Test
  void theConnectionReportsClosedOnlyAfterTheLastStreamsSignals() {
    client(opts().drainTimeout(Duration.ofMillis(100)).build());
    transport.closeReportedAtOnce = true;
    Recorder answered = new Recorder();
    Recorder cut = new Recorder();
    Loop.run(
        loop,
        () -> {
          conn.requestResponse(msg("answered"), answered);
          conn.requestStream(msg("cut by the drain timeout"), 1, cut);
          conn.onClose().whenComplete((v, e) -> {
            answered.onRequest(-1); // markers: "the connection reported closed here"
            cut.onRequest(-1);
          });
        });
    transport.drain();
    conn.close();
    // Handled after the close (both queue on the loop), and before the drain timeout: the clock
    // has not moved.
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "yes"));
    assertThat(answered.all).extracting(Ev::kind).containsExactly("next", "complete");
    assertThat(transport.isClosed()).as("closed while a stream is live").isFalse();
    clock().advanceMillis(100); // the drain timeout cuts the other stream
    transport.awaitClosed();
    Loop.settle(loop);
    assertThat(answered.all).extracting(Ev::kind).startsWith("next", "complete");
    assertThat(cut.all).extracting(Ev::kind).containsExactly("error", "request");
  }

  @Test
  void afterTheLastStreamEndsTheCloseFollowsItsSignals() {
    client(opts().build());
    transport.closeReportedAtOnce = true;
    Recorder last = new Recorder();
    Loop.run(
        loop,
        () -> {
          conn.requestResponse(msg("last"), last);
          conn.onClose().whenComplete((v, e) -> last.onRequest(-1));
        });
    transport.drain();
    conn.close();
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "bye"));
    transport.awaitClosed();
    Loop.settle(loop);
    assertThat(last.all).extracting(Ev::kind).containsExactly("next", "complete", "request");
  }
}
