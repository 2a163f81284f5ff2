package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.ErrorCode;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The budgets against hostile peers (docs/limits.md): each one breached, with the error the peer
 * gets, and each one respected, with the connection staying open.
 */
class HostilePeerLimitsEngineTest extends EngineTestBase {

  private String assertConnectionError() {
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CONNECTION_ERROR");
    transport.awaitClosed();
    Throwable cause = Loop.awaitOutcome(conn.onClose());
    assertThat(cause).isInstanceOf(ConnectionErrorException.class);
    // Rejection paths a peer can trigger at will build no stack trace.
    assertThat(cause.getStackTrace()).isEmpty();
    return e.errorMessage();
  }

  /** Skips frames until the connection's ERROR, which must be CONNECTION_ERROR. */
  private String assertConnectionErrorAfterOthers() {
    for (; ; ) {
      Wire.Sent s = transport.next();
      if (s.type() == FrameType.ERROR && s.streamId() == 0) {
        assertThat(ErrorCode.name(s.errorCode())).isEqualTo("CONNECTION_ERROR");
        transport.awaitClosed();
        return s.errorMessage();
      }
    }
  }

  private static ByteBuf[] times(int n, java.util.function.IntFunction<ByteBuf> f) {
    ByteBuf[] out = new ByteBuf[n];
    for (int i = 0; i < n; i++) {
      out[i] = f.apply(i);
    }
    return out;
  }

  private List<Wire.Sent> take(int n) {
    List<Wire.Sent> out = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(transport.next());
    }
    return out;
  }

  private void assertStillServes(int id) {
    transport.inject(Wire.requestResponse(id, null, "still here"));
    Wire.Sent p = transport.next(FrameType.PAYLOAD);
    assertThat(p.streamId()).isEqualTo(id);
    assertThat(p.dataUtf8()).isEqualTo("rr:still here");
    assertThat(transport.isClosed()).isFalse();
  }

  // ---- keepalive -------------------------------------------------------------------------------

  @Test
  void keepAliveDataAboveTheCapIsAConnectionError() {
    acceptedServer(opts().maxKeepAliveDataSize(100).build(), new Producers.Counting(-1));
    transport.inject(Wire.keepAlive(true, 0, Wire.pattern(100, 1)));
    assertThat(transport.next(FrameType.KEEPALIVE).size()).isEqualTo(Frames.HEADER_SIZE + 8 + 100);
    transport.inject(Wire.keepAlive(true, 0, Wire.pattern(101, 1)));
    assertThat(assertConnectionError()).contains("KEEPALIVE data larger than 100");
  }

  @Test
  void keepAliveFloodIsAConnectionError() {
    acceptedServer(opts().maxKeepAlivesPerSecond(5).build(), new Producers.Counting(-1));
    transport.inject(times(200, i -> Wire.keepAlive(false, 0, null)));
    assertThat(assertConnectionError()).contains("KEEPALIVE");
  }

  @Test
  void keepAlivesWithinTheRateAreAnswered() {
    acceptedServer(opts().maxKeepAlivesPerSecond(5).build(), new Producers.Counting(-1));
    transport.inject(times(5, i -> Wire.keepAlive(true, 0, null)));
    assertThat(take(5)).hasSize(5);
    assertStillServes(1);
  }

  @Test
  void atMostOneKeepAliveEchoWaitsWhileThePeerDoesNotRead() {
    acceptedServer(opts().build(), new Producers.Counting(-1));
    transport.setWritable(false);
    transport.inject(times(10, i -> Wire.keepAlive(true, 0, Wire.pattern(8, i))));
    transport.setWritable(true);
    Loop.settle(loop);
    List<Wire.Sent> echoes = transport.drain();
    assertThat(echoes).hasSize(1);
    assertThat(echoes.get(0).type()).isEqualTo(FrameType.KEEPALIVE);
    // Writable again: echoes resume.
    transport.inject(Wire.keepAlive(true, 0, null));
    assertThat(transport.next(FrameType.KEEPALIVE).has(Frames.FLAG_KEEPALIVE_RESPOND)).isFalse();
  }

  // ---- metadata push ---------------------------------------------------------------------------

  @Test
  void metadataPushAboveTheSizeCapIsAConnectionError() {
    acceptedServer(opts().maxMetadataPushSize(10).build(), new Producers.Counting(-1));
    transport.inject(Wire.metadataPush(0, "0123456789"));
    assertStillServes(1);
    transport.inject(Wire.metadataPush(0, "0123456789A"));
    assertThat(assertConnectionError()).contains("METADATA_PUSH larger than 10");
  }

  /** Pushes on a stream id (as rsocket-rust sends them) are held to the same size and rate. */
  @Test
  void metadataPushesOnStreamIdsHaveTheSameLimits() {
    acceptedServer(opts().maxMetadataPushSize(10).build(), new Producers.Counting(-1));
    transport.inject(Wire.metadataPush(7, "0123456789A"));
    assertThat(assertConnectionError()).contains("METADATA_PUSH larger than 10");

    acceptedServer(opts().maxMetadataPushesPerSecond(10).build(), new Producers.Counting(-1));
    transport.inject(times(500, i -> Wire.metadataPush(2 * i + 1, "m" + i)));
    assertThat(assertConnectionError()).contains("METADATA_PUSH");
  }

  @Test
  void metadataPushFloodIsAConnectionError() {
    acceptedServer(opts().maxMetadataPushesPerSecond(10).build(), new Producers.Counting(-1));
    transport.inject(times(500, i -> Wire.metadataPush(0, "m" + i)));
    assertThat(assertConnectionError()).contains("METADATA_PUSH");
  }

  // ---- REQUEST_N and CANCEL ----------------------------------------------------------------------

  @Test
  void requestNFloodIsAConnectionError() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxRequestNPerSecond(10).build(), producer);
    transport.inject(Wire.requestStream(1, 1, "s"));
    transport.inject(times(500, i -> Wire.requestN(1, 1)));
    assertThat(assertConnectionError()).contains("REQUEST_N");
  }

  @Test
  void requestNWithinTheRateIsServed() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxRequestNPerSecond(10).build(), producer);
    transport.inject(Wire.requestStream(1, 1, "s"));
    transport.inject(times(9, i -> Wire.requestN(1, 1)));
    assertThat(take(10)).hasSize(10);
    assertStillServes(3);
  }

  @Test
  void requestCancelLoopIsAConnectionError() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxCancelsPerSecond(20).build(), producer);
    ByteBuf[] loopFrames = new ByteBuf[1000];
    for (int i = 0; i < 500; i++) {
      loopFrames[2 * i] = Wire.requestStream(2 * i + 1, 1, "r");
      loopFrames[2 * i + 1] = Wire.cancel(2 * i + 1);
    }
    transport.inject(loopFrames);
    assertThat(assertConnectionError()).contains("CANCEL");
    long cancels = producer.events.stream().filter("cancel"::equals).count();
    assertThat(cancels).isBetween(20L, 21L);
  }

  // ---- ignored frames --------------------------------------------------------------------------

  @Test
  void floodOfFramesForUnknownStreamsIsAConnectionError() {
    acceptedServer(opts().maxIgnoredFramesPerSecond(10).build(), new Producers.Counting(-1));
    transport.inject(times(300, i -> Wire.requestN(2 * i + 101, 5)));
    assertThat(assertConnectionError()).contains("ignored or invalid frames");
  }

  @Test
  void fewIgnoredFramesAreIgnored() {
    acceptedServer(opts().maxIgnoredFramesPerSecond(10).build(), new Producers.Counting(-1));
    transport.inject(
        Wire.requestN(101, 5),
        Wire.cancel(103),
        Wire.next(105, "x"),
        Wire.requestN(0, 1),
        Wire.raw(1, 0x1F, Frames.FLAG_IGNORE, new byte[] {1}));
    assertStillServes(1);
  }

  @Test
  void lateFramesForStreamsThatEndedAreNotCounted() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxIgnoredFramesPerSecond(10).build(), producer);
    assertStillServes(1);
    // REQUEST_N, CANCEL and PAYLOAD for stream 1, which ended: a normal race, dropped uncounted.
    transport.inject(times(300, i -> i % 3 == 0 ? Wire.requestN(1, 5) : i % 3 == 1 ? Wire.cancel(1) : Wire.next(1, "late")));
    assertStillServes(3);
  }

  @Test
  void lateFramesForOurCanceledStreamAreNotCounted() {
    client(opts().maxIgnoredFramesPerSecond(10).build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), Long.MAX_VALUE, r).cancel());
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(1);
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
    transport.inject(times(500, i -> Wire.next(1, "in flight")));
    // Frames for stream 3, which this client never opened, do count.
    transport.inject(times(500, i -> Wire.next(3, "bogus")));
    assertThat(assertConnectionError()).contains("ignored");
  }

  @Test
  void floodOfRequestsOnALiveIdIsAConnectionError() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxIgnoredFramesPerSecond(10).build(), producer);
    transport.inject(Wire.requestStream(1, 1, "live"));
    transport.inject(times(100, i -> Wire.requestStream(1, 1, "again")));
    assertThat(assertConnectionError()).contains("ignored");
    assertThat(producer.events.stream().filter(e -> e.startsWith("request-stream"))).hasSize(1);
  }

  // ---- fragments ---------------------------------------------------------------------------------

  @Test
  void tooManyFragmentsFailTheStreamWithInvalid() {
    acceptedServer(opts().maxFragmentsPerMessage(4).build(), new Producers.Counting(-1));
    ByteBuf[] f = new ByteBuf[5];
    f[0] = Wire.frame(1, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.b("a"));
    for (int i = 1; i < 5; i++) {
      f[i] = Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.b("b"));
    }
    transport.inject(f);
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID);
    assertThat(e.errorMessage()).contains("more than 4 fragments");
    assertThat(Loop.call(loop, () -> conn.reassemblyBytes())).isZero();
    // Four fragments are fine.
    transport.inject(
        Wire.frame(3, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.b("a")),
        Wire.frame(3, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.b("b")),
        Wire.frame(3, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.b("c")),
        Wire.frame(3, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.b("d")));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:abcd");
  }

  @Test
  void reassemblyBudgetOfTheConnectionIsAConnectionError() {
    acceptedServer(
        opts().maxReassembledSize(1000).maxReassemblyBytes(2000).build(), new Producers.Counting(-1));
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.pattern(900, 1)),
        Wire.frame(3, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.pattern(900, 2)));
    Loop.settle(loop);
    assertThat(Loop.call(loop, () -> conn.reassemblyBytes())).isEqualTo(1800);
    transport.assertNothingSent();
    transport.inject(
        Wire.frame(5, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.pattern(900, 3)));
    assertThat(assertConnectionError()).contains("more than 2000 bytes");
    assertThat(Loop.call(loop, () -> conn.reassemblyBytes())).isZero();
  }

  @Test
  void completedReassemblyGivesItsBytesBack() {
    acceptedServer(
        opts().maxReassembledSize(1000).maxReassemblyBytes(1000).build(), new Producers.Counting(-1));
    for (int id = 1; id < 20; id += 2) {
      transport.inject(
          Wire.frame(id, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.pattern(600, id)),
          Wire.frame(id, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.pattern(300, id)));
      assertThat(transport.next(FrameType.PAYLOAD).streamId()).isEqualTo(id);
    }
    assertThat(Loop.call(loop, () -> conn.reassemblyBytes())).isZero();
    // A peer cancel while reassembling gives the bytes back too.
    transport.inject(
        Wire.frame(41, FrameType.REQUEST_CHANNEL, Frames.FLAG_FOLLOWS, 1, null, Wire.pattern(700, 1)),
        Wire.cancel(41));
    assertThat(Loop.call(loop, () -> conn.reassemblyBytes())).isZero();
  }

  @Test
  void floodOfEmptyFragmentsIsCutOff() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxIgnoredFramesPerSecond(10).build(), producer);
    ByteBuf[] flood = new ByteBuf[200];
    for (int i = 0; i < 100; i++) {
      int id = 2 * i + 1;
      flood[2 * i] = Wire.frame(id, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.b("x"));
      flood[2 * i + 1] =
          Wire.frame(id, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, new byte[0]);
    }
    transport.inject(flood);
    Wire.Sent first = transport.next(FrameType.ERROR);
    assertThat(first.errorCode()).isEqualTo(ErrorCode.INVALID);
    assertThat(first.errorMessage()).contains("empty fragment");
    assertThat(assertConnectionErrorAfterOthers()).contains("ignored or invalid");
    // No request reached the handler; the connection's close may or may not have reached it yet.
    assertThat(producer.events).allMatch(e -> e.startsWith("close:"));
  }

  // ---- write stall -------------------------------------------------------------------------------

  @Test
  void aPeerThatStopsReadingIsCutOffAfterTheWriteStallTimeout() {
    acceptedServer(opts().writeStallTimeout(Duration.ofMillis(200)).build(), new Producers.Counting(-1));
    transport.setWritable(false);
    transport.awaitClosed();
    assertThat(assertConnectionError()).contains("write stall");
  }

  @Test
  void writableAgainBeforeTheTimeoutKeepsTheConnection() throws InterruptedException {
    acceptedServer(opts().writeStallTimeout(Duration.ofMillis(200)).build(), new Producers.Counting(-1));
    transport.setWritable(false);
    transport.setWritable(true);
    Thread.sleep(400); // past the timeout: the canceled timer must not fire
    assertStillServes(1);
  }
}
