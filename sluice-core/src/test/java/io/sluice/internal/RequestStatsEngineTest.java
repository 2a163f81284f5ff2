package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.StreamHandle;
import io.sluice.internal.LeaseTestKit.Holding;
import io.sluice.internal.LeaseTestKit.StatsLog;
import io.sluice.internal.LeaseTestKit.TestPolicy;
import io.sluice.internal.frame.FrameType;
import io.sluice.lease.LeaseGrants;
import io.sluice.test.ManualClockLoop;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link io.sluice.lease.RequestStats}: one onStart per request that reaches the responder, one
 * onEnd for each with how it ended, onFirstResponse at the first answer, latencies on the loop's
 * clock (moved by hand here, so they are exact), onRejected for requests refused before the
 * responder.
 */
class RequestStatsEngineTest extends EngineTestBase {
  private static final long MS = 1_000_000;
  private final StatsLog stats = new StatsLog();
  private final Holding responder = new Holding();

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  @AfterEach
  void everyStartHasExactlyOneEnd() {
    if (conn != null) {
      Loop.run(loop, () -> conn.dispose());
      Loop.awaitOutcome(conn.onClose());
    }
    long starts = stats.all.stream().filter(e -> e.startsWith("start ")).count();
    long ends = stats.all.stream().filter(e -> e.startsWith("end ")).count();
    assertThat(ends).as("onEnd calls for %s", stats.all).isEqualTo(starts);
  }

  private void serverWithStats() {
    acceptedServer(opts().requestStats(stats).build(), responder);
  }

  private void expect(String... events) {
    for (String e : events) {
      try {
        String got = stats.events.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(got).as("stats event (all: %s)", stats.all).isEqualTo(e);
      } catch (InterruptedException x) {
        throw new AssertionError(x);
      }
    }
  }

  private void expectNoMore() {
    Loop.settle(loop);
    assertThat(stats.events).as("more stats events").isEmpty();
  }

  private void advanceMillis(long ms) {
    clock().advance(ms, TimeUnit.MILLISECONDS);
  }

  @Test
  void requestResponseAnsweredReportsFirstResponseAndCompleteWithLatencies() {
    serverWithStats();
    transport.inject(Wire.requestResponse(1, null, "q"));
    StreamHandle h = responder.take();
    expect("start REQUEST_RESPONSE");
    advanceMillis(5);
    Loop.run(loop, () -> h.nextAndComplete(msg("a")));
    transport.next(FrameType.PAYLOAD);
    expect("first REQUEST_RESPONSE " + 5 * MS, "end REQUEST_RESPONSE COMPLETE " + 5 * MS);
    expectNoMore();
  }

  @Test
  void requestResponseFailedByTheResponderEndsWithError() {
    serverWithStats();
    transport.inject(Wire.requestResponse(1, null, "q"));
    StreamHandle h = responder.take();
    advanceMillis(2);
    Loop.run(loop, () -> h.error(new IllegalStateException("no")));
    transport.next(FrameType.ERROR);
    expect("start REQUEST_RESPONSE", "end REQUEST_RESPONSE ERROR " + 2 * MS);
    expectNoMore();
  }

  @Test
  void aResponderThatThrowsStillPairsItsStartWithAnErrorEnd() {
    acceptedServer(
        opts().requestStats(stats).build(),
        new io.sluice.Responder() {
          @Override
          public io.sluice.StreamListener requestStream(
              io.sluice.Message request, StreamHandle stream) {
            request.release();
            throw new IllegalStateException("handler blew up");
          }
        });
    transport.inject(Wire.requestStream(1, 1, "q"));
    transport.next(FrameType.ERROR);
    expect("start REQUEST_STREAM", "end REQUEST_STREAM ERROR 0");
    expectNoMore();
  }

  @Test
  void requestStreamReportsOnlyItsFirstMessageAndCompletes() {
    serverWithStats();
    transport.inject(Wire.requestStream(1, 5, "q"));
    StreamHandle h = responder.take();
    expect("start REQUEST_STREAM");
    advanceMillis(1);
    Loop.run(loop, () -> h.next(msg("1")));
    advanceMillis(2);
    Loop.run(loop, () -> h.next(msg("2")));
    Loop.run(loop, h::complete);
    transport.next(FrameType.PAYLOAD);
    transport.next(FrameType.PAYLOAD);
    transport.next(FrameType.PAYLOAD);
    expect("first REQUEST_STREAM " + MS, "end REQUEST_STREAM COMPLETE " + 3 * MS);
    expectNoMore();
  }

  @Test
  void requestStreamCanceledByThePeer() {
    serverWithStats();
    transport.inject(Wire.requestStream(1, 5, "q"));
    responder.take();
    advanceMillis(4);
    transport.inject(Wire.cancel(1));
    expect("start REQUEST_STREAM", "end REQUEST_STREAM CANCELED " + 4 * MS);
    expectNoMore();
  }

  @Test
  void aRequestThatEndsBeforeItsFirstResponseIsReportedUnansweredBeforeItsEnd() {
    stats.logUnanswered = true;
    serverWithStats();
    transport.inject(Wire.requestResponse(1, null, "answered"));
    StreamHandle answered = responder.take();
    expect("start REQUEST_RESPONSE");
    Loop.run(loop, () -> answered.nextAndComplete(msg("a")));
    transport.next(FrameType.PAYLOAD);
    expect("first REQUEST_RESPONSE 0", "end REQUEST_RESPONSE COMPLETE 0");

    transport.inject(Wire.requestResponse(3, null, "failed"));
    StreamHandle failed = responder.take();
    Loop.run(loop, () -> failed.error(new IllegalStateException("no")));
    transport.next(FrameType.ERROR);
    expect("start REQUEST_RESPONSE", "unanswered REQUEST_RESPONSE", "end REQUEST_RESPONSE ERROR 0");

    transport.inject(Wire.requestStream(5, 5, "canceled"));
    responder.take();
    transport.inject(Wire.cancel(5));
    expect("start REQUEST_STREAM", "unanswered REQUEST_STREAM", "end REQUEST_STREAM CANCELED 0");

    transport.inject(Wire.requestStream(7, 5, "streamed"));
    StreamHandle streamed = responder.take();
    Loop.run(loop, () -> streamed.next(msg("1")));
    transport.next(FrameType.PAYLOAD);
    transport.inject(Wire.cancel(7));
    expect("start REQUEST_STREAM", "first REQUEST_STREAM 0", "end REQUEST_STREAM CANCELED 0");
    expectNoMore();
  }

  @Test
  void requestChannelCompletesWhenBothHalvesHave() {
    serverWithStats();
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    StreamHandle h = responder.take();
    expect("start REQUEST_CHANNEL");
    h.nextAndComplete(msg("only answer"));
    transport.next(FrameType.PAYLOAD);
    expect("first REQUEST_CHANNEL 0");
    expectNoMore(); // the requester's half is still open
    advanceMillis(3);
    transport.inject(Wire.complete(1));
    expect("end REQUEST_CHANNEL COMPLETE " + 3 * MS);
    expectNoMore();
  }

  @Test
  void requestChannelFailedByThePeer() {
    serverWithStats();
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    responder.take();
    transport.inject(Wire.error(1, ErrorCode.APPLICATION_ERROR, "peer failed"));
    expect("start REQUEST_CHANNEL", "end REQUEST_CHANNEL ERROR 0");
    expectNoMore();
  }

  @Test
  void streamsLiveWhenTheConnectionClosesEndWithConnectionClosed() {
    serverWithStats();
    transport.inject(Wire.requestStream(1, 5, "s"), Wire.requestChannel(3, 1, "c", false));
    responder.take();
    responder.take();
    expect("start REQUEST_STREAM", "start REQUEST_CHANNEL");
    advanceMillis(7);
    transport.peerClosed();
    Loop.awaitOutcome(conn.onClose());
    assertThat(stats.all)
        .contains(
            "end REQUEST_STREAM CONNECTION_CLOSED " + 7 * MS,
            "end REQUEST_CHANNEL CONNECTION_CLOSED " + 7 * MS);
  }

  @Test
  void aStreamCutByTheDrainTimeoutEndsWithConnectionClosed() {
    acceptedServer(
        opts().requestStats(stats).drainTimeout(Duration.ofMillis(100)).build(), responder);
    transport.inject(Wire.requestStream(1, 5, "s"));
    responder.take();
    Loop.run(loop, conn::close);
    transport.next(FrameType.ERROR);
    advanceMillis(99);
    assertThat(transport.isClosed()).isFalse();
    advanceMillis(1);
    Loop.awaitOutcome(conn.onClose());
    expect("start REQUEST_STREAM", "end REQUEST_STREAM CONNECTION_CLOSED " + 100 * MS);
  }

  @Test
  void fireAndForgetStartsAndEndsWhenHandedToTheResponder() {
    serverWithStats();
    transport.inject(Wire.fireAndForget(1, null, "f"));
    expect("start FIRE_AND_FORGET", "end FIRE_AND_FORGET COMPLETE 0");
    assertThat(responder.seen).containsExactly("fnf:f");
    expectNoMore();
  }

  @Test
  void requestsOverTheStreamLimitAreRejectedNotStarted() {
    acceptedServer(opts().requestStats(stats).maxActiveStreams(1).build(), responder);
    transport.inject(Wire.requestStream(1, 1, "held"), Wire.requestResponse(3, null, "over"));
    responder.take();
    transport.next(FrameType.ERROR);
    expect("start REQUEST_STREAM", "rejected REQUEST_RESPONSE");
    expectNoMore();
  }

  @Test
  void leaseRefusalsAreRejectedAndBothStatsReceiversHearEverything() {
    TestPolicy policy = new TestPolicy();
    StatsLog policyStats = new StatsLog();
    policy.stats = policyStats;
    policy.onAttach = g -> g.grant(Duration.ofSeconds(10), 3, LeaseGrants.ALL_RANKS);
    policy.admit = m -> !m.dataUtf8().equals("refused");
    server(opts().leasePolicy(policy).requestStats(stats).build(), responder);
    transport.inject(Wire.setupWithLease());
    transport.next(FrameType.LEASE);
    transport.inject(
        Wire.requestResponse(1, null, "ok"),
        Wire.requestResponse(3, null, "refused"),
        Wire.fireAndForget(5, null, "fnf"),
        Wire.requestStream(7, 1, "beyond the lease"));
    StreamHandle h = responder.take();
    h.nextAndComplete(msg("a"));
    expect(
        "start REQUEST_RESPONSE",
        "rejected REQUEST_RESPONSE",
        "start FIRE_AND_FORGET",
        "end FIRE_AND_FORGET COMPLETE 0",
        "rejected REQUEST_STREAM",
        "first REQUEST_RESPONSE 0",
        "end REQUEST_RESPONSE COMPLETE 0");
    expectNoMore();
    assertThat(policyStats.all).isEqualTo(stats.all);
  }

  @Test
  void aThrowingStatsReceiverBreaksNeitherTheRequestNorTheConnection() {
    acceptedServer(
        opts()
            .requestStats(
                new io.sluice.lease.RequestStats() {
                  @Override
                  public void onStart(Kind kind) {
                    throw new IllegalStateException("stats bug");
                  }

                  @Override
                  public void onEnd(Kind kind, long latencyNanos, Outcome outcome) {
                    throw new IllegalStateException("stats bug");
                  }
                })
            .build(),
        responder);
    transport.inject(Wire.requestResponse(1, null, "q"));
    responder.take().nextAndComplete(msg("a"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("a");
    assertThat(transport.isClosed()).isFalse();
  }
}
