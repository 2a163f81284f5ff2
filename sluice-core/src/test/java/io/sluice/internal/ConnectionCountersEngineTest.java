package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.StreamHandle;
import io.sluice.core.ConnectionObserver;
import io.sluice.core.ConnectionStats;
import io.sluice.core.ConnectionStats.CloseCause;
import io.sluice.core.ConnectionStats.Interaction;
import io.sluice.core.ConnectionStats.Limit;
import io.sluice.core.ConnectionStats.Outcome;
import io.sluice.internal.LeaseTestKit.Holding;
import io.sluice.internal.frame.FrameType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectionObserver} and {@link ConnectionStats}: exact frame and byte counts each way for
 * a known exchange, a stream outcome per interaction, ERROR frames by code, limit hits, and why
 * the connection closed. Each count would stay 0 if its hook were not called.
 */
class ConnectionCountersEngineTest extends EngineTestBase {

  /** Records opened/closed; the stats are read on the loop so that the counts are exact. */
  static final class Recording implements ConnectionObserver {
    final List<ConnectionStats> opened = new CopyOnWriteArrayList<>();
    final CompletableFuture<ConnectionStats> closed = new CompletableFuture<>();
    int closedCalls;

    @Override
    public void opened(ConnectionStats stats) {
      opened.add(stats);
    }

    @Override
    public synchronized void closed(ConnectionStats stats) {
      closedCalls++;
      closed.complete(stats);
    }

    ConnectionStats stats() {
      assertThat(opened).hasSize(1);
      return opened.get(0);
    }
  }

  private final Recording observer = new Recording();
  private final Holding responder = new Holding();

  private ConnectionStats acceptedServer() {
    acceptedServer(opts().observer(observer).build(), responder);
    return observer.stats();
  }

  private <T> T onLoop(java.util.concurrent.Callable<T> read) {
    Loop.settle(loop);
    return Loop.call(loop, read);
  }

  private static int in(int type) {
    return ConnectionCounters.typeIndex(type);
  }

  @Test
  void countsEveryFrameAndByteOfAKnownExchangeByTypeAndDirection() {
    ConnectionStats st = acceptedServer();
    assertThat(st.transport()).isEqualTo("other"); // the fake transport does not name itself
    assertThat(st.client()).isFalse();
    io.netty.buffer.ByteBuf setupSize = Wire.setup();
    int setupBytes = setupSize.readableBytes();
    setupSize.release();
    io.netty.buffer.ByteBuf rr = Wire.requestResponse(1, null, "q");
    int rrBytes = rr.readableBytes();
    transport.inject(rr);
    StreamHandle handle = takeHandle();
    Loop.run(loop, () -> handle.nextAndComplete(msg("answer")));
    Wire.Sent answer = transport.next(FrameType.PAYLOAD);
    transport.inject(Wire.requestStream(3, 2, "s"));
    StreamHandle rs = takeHandle();
    Loop.run(loop, () -> rs.next(msg("1")));
    transport.next(FrameType.PAYLOAD);
    transport.inject(Wire.cancel(3));

    assertThat(onLoop(() -> st.frames(true, in(FrameType.SETUP)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(true, in(FrameType.REQUEST_RESPONSE)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(true, in(FrameType.REQUEST_STREAM)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(true, in(FrameType.CANCEL)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(true, in(FrameType.PAYLOAD)))).isZero();
    assertThat(onLoop(() -> st.frames(false, in(FrameType.PAYLOAD)))).isEqualTo(2);
    assertThat(onLoop(() -> st.frames(false, in(FrameType.REQUEST_RESPONSE)))).isZero();
    long framesOut = 0;
    for (int i = 0; i < ConnectionStats.FRAME_TYPES; i++) {
      int t = i;
      framesOut += onLoop(() -> st.frames(false, t));
    }
    assertThat(framesOut).as("frames sent").isEqualTo(2);
    int cancelBytes = 6;
    io.netty.buffer.ByteBuf rsFrame = Wire.requestStream(3, 2, "s");
    int rsBytes = rsFrame.readableBytes();
    rsFrame.release();
    assertThat(onLoop(() -> st.bytes(true)))
        .isEqualTo((long) setupBytes + rrBytes + rsBytes + cancelBytes);
    long payloadOut = answer.size();
    assertThat(onLoop(() -> st.bytes(false))).isGreaterThan(payloadOut);
  }

  private StreamHandle takeHandle() {
    try {
      StreamHandle h = responder.handles.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(h).as("a request reached the responder").isNotNull();
      return h;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aStreamOutcomePerInteraction() {
    ConnectionStats st = acceptedServer();
    // request-response, answered: complete
    transport.inject(Wire.requestResponse(1, null, "q"));
    StreamHandle rr = takeHandle();
    Loop.run(loop, () -> rr.nextAndComplete(msg("a")));
    transport.next(FrameType.PAYLOAD);
    // request-stream canceled by the peer
    transport.inject(Wire.requestStream(3, 5, "q"));
    takeHandle();
    transport.inject(Wire.cancel(3));
    // request-channel failed by the handler: error
    transport.inject(Wire.requestChannel(5, 1, "c", false));
    StreamHandle rc = takeHandle();
    Loop.run(loop, () -> rc.error(new IllegalStateException("no")));
    transport.next(FrameType.ERROR);
    // fire-and-forget: complete at once
    transport.inject(Wire.fireAndForget(7, null, "f"));

    assertThat(onLoop(() -> st.streamsStarted(Interaction.REQUEST_RESPONSE))).isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_RESPONSE, Outcome.COMPLETE)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_STREAM, Outcome.CANCELED)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_STREAM, Outcome.COMPLETE)))
        .isZero();
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_CHANNEL, Outcome.ERROR)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.streamsStarted(Interaction.FIRE_AND_FORGET))).isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.FIRE_AND_FORGET, Outcome.COMPLETE)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.errors(false, ConnectionStats.errorCodeIndex(ErrorCode.APPLICATION_ERROR))))
        .isEqualTo(1);

    // a stream still live when the connection closes ends with connection_closed
    transport.inject(Wire.requestStream(9, 5, "q"));
    takeHandle();
    Loop.run(loop, () -> conn.dispose());
    ConnectionStats closed = Loop.await(observer.closed);
    assertThat(closed).isSameAs(st);
    assertThat(st.streamsEnded(Interaction.REQUEST_STREAM, Outcome.CONNECTION_CLOSED)).isEqualTo(1);
    assertThat(st.closeCause()).isEqualTo(CloseCause.TRANSPORT);
    Loop.settle(loop);
    assertThat(observer.closedCalls).isEqualTo(1);
    conn = null;
  }

  @Test
  void aRefusedStreamCountsTheLimitAndARejectedOutcome() {
    acceptedServer(opts().observer(observer).maxActiveStreams(1).build(), responder);
    ConnectionStats st = observer.stats();
    transport.inject(Wire.requestStream(1, 5, "q"));
    takeHandle();
    transport.inject(Wire.requestStream(3, 5, "q"));
    Wire.Sent refused = transport.next(FrameType.ERROR);
    assertThat(refused.errorCode()).isEqualTo(ErrorCode.REJECTED);
    assertThat(onLoop(() -> st.limitHits(Limit.MAX_ACTIVE_STREAMS))).isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_STREAM, Outcome.REJECTED)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.errors(false, ConnectionStats.errorCodeIndex(ErrorCode.REJECTED))))
        .isEqualTo(1);
  }

  @Test
  void aLimitThatClosesTheConnectionIsItsCloseCause() {
    acceptedServer(opts().observer(observer).maxMetadataPushSize(4).build(), responder);
    ConnectionStats st = observer.stats();
    transport.inject(Wire.metadataPush(0, "far more than four bytes"));
    Wire.Sent err = transport.next(FrameType.ERROR);
    assertThat(err.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    ConnectionStats closed = Loop.await(observer.closed);
    assertThat(closed.limitHits(Limit.MAX_METADATA_PUSH_SIZE)).isEqualTo(1);
    assertThat(closed.closeCause()).isEqualTo(CloseCause.LIMIT);
    assertThat(closed.closeLimit()).isEqualTo(Limit.MAX_METADATA_PUSH_SIZE);
    assertThat(closed.errors(false, ConnectionStats.errorCodeIndex(ErrorCode.CONNECTION_ERROR)))
        .isEqualTo(1);
    conn = null;
  }

  @Test
  void thePeersConnectionErrorIsCountedByCodeAndIsTheCloseCause() {
    ConnectionStats st = acceptedServer();
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_ERROR, "bye"));
    ConnectionStats closed = Loop.await(observer.closed);
    assertThat(closed).isSameAs(st);
    assertThat(st.errors(true, ConnectionStats.errorCodeIndex(ErrorCode.CONNECTION_ERROR)))
        .isEqualTo(1);
    assertThat(st.closeCause()).isEqualTo(CloseCause.PEER_ERROR);
    conn = null;
  }

  @Test
  void aClientCountsItsSetupAndRequestsItSendsAndAGracefulCloseIsLocal() {
    Wire.Sent setup = client(opts().observer(observer).build());
    ConnectionStats st = observer.stats();
    assertThat(st.client()).isTrue();
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("q"), r));
    Wire.Sent req = transport.next(FrameType.REQUEST_RESPONSE);
    transport.inject(Wire.payload(req.streamId(), io.sluice.internal.frame.Frames.FLAG_NEXT | io.sluice.internal.frame.Frames.FLAG_COMPLETE, null, "a"));
    r.take("next");
    Loop.run(loop, () -> conn.fireAndForget(msg("f"), r));
    transport.next(FrameType.REQUEST_FNF);
    assertThat(onLoop(() -> st.frames(false, in(FrameType.SETUP)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(false, in(FrameType.REQUEST_RESPONSE)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(false, in(FrameType.REQUEST_FNF)))).isEqualTo(1);
    assertThat(onLoop(() -> st.frames(true, in(FrameType.PAYLOAD)))).isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.REQUEST_RESPONSE, Outcome.COMPLETE)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.streamsEnded(Interaction.FIRE_AND_FORGET, Outcome.COMPLETE)))
        .isEqualTo(1);
    assertThat(onLoop(() -> st.bytes(false))).isGreaterThanOrEqualTo((long) setup.size());
    Loop.run(loop, () -> conn.close());
    transport.next(FrameType.ERROR);
    ConnectionStats closed = Loop.await(observer.closed);
    assertThat(closed.closeCause()).isEqualTo(CloseCause.LOCAL_CLOSE);
    conn = null;
  }

  @Test
  void withoutAnObserverNothingIsCounted() {
    acceptedServer(opts().build(), responder);
    assertThat(Loop.call(loop, () -> conn.streams.counters)).isNull();
    assertThat(observer.opened).isEmpty();
  }
}
