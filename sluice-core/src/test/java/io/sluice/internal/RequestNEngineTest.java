package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.StreamHandle;
import io.sluice.exceptions.InvalidException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Request-n on the wire: credit granted is credit used, never more. */
class RequestNEngineTest extends EngineTestBase {
  static final int MAX = Integer.MAX_VALUE;

  private void expectPayloads(int id, int from, int count) {
    for (int i = from; i < from + count; i++) {
      Wire.Sent p = transport.next(FrameType.PAYLOAD);
      assertThat(p.streamId()).isEqualTo(id);
      assertThat(p.has(Frames.FLAG_NEXT)).as("N flag on %s", p).isTrue();
      assertThat(p.has(Frames.FLAG_COMPLETE)).as("C flag on %s", p).isFalse();
      assertThat(p.dataUtf8()).isEqualTo(Integer.toString(i));
    }
  }

  @Test
  void responderSendsExactlyTheGrantedPayloadsThenWaitsForRequestN() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 2, "go"));
    assertThat(producer.take()).isEqualTo("request-stream:go");
    expectPayloads(1, 0, 2);
    transport.assertNothingSent();
    assertThat(producer.requested).hasValue(2);

    transport.inject(Wire.requestN(1, 3));
    expectPayloads(1, 2, 3);
    transport.assertNothingSent();
    assertThat(producer.requested).hasValue(5);

    transport.inject(Wire.requestN(1, 1));
    expectPayloads(1, 5, 1);
    transport.assertNothingSent();
  }

  @Test
  void requestNOfIntMaxIsUnbounded() {
    Producers.Counting producer = new Producers.Counting(1000);
    acceptedServer(opts().outboundWindow(16).build(), producer);
    transport.inject(Wire.requestStream(1, 1, "go"));
    expectPayloads(1, 0, 1);
    transport.inject(Wire.requestN(1, MAX));
    expectPayloads(1, 1, 998);
    Wire.Sent last = transport.next(FrameType.PAYLOAD);
    assertThat(last.dataUtf8()).isEqualTo("999");
    assertThat(last.has(Frames.FLAG_NEXT)).isTrue();
    assertThat(last.has(Frames.FLAG_COMPLETE)).isTrue();
    transport.assertNothingSent();
    // The producer is asked for at most one window at a time, however much the peer granted.
    assertThat(producer.grants).allSatisfy(g -> assertThat(g).isBetween(1L, 16L));
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void initialNOfIntMaxIsUnbounded() {
    Producers.Counting producer = new Producers.Counting(700);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, MAX, "go"));
    expectPayloads(1, 0, 699);
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_COMPLETE)).isTrue();
    transport.assertNothingSent();
  }

  @Test
  void creditsSaturateAtUnbounded() {
    Producers.Counting producer = new Producers.Counting(600);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, MAX - 1, "go"));
    transport.inject(Wire.requestN(1, MAX), Wire.requestN(1, MAX), Wire.requestN(1, 5));
    expectPayloads(1, 0, 599);
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_COMPLETE)).isTrue();
    transport.assertNothingSent();
    assertThat(producer.grants).allSatisfy(g -> assertThat(g).isPositive());
  }

  @Test
  void producerIsAskedOnlyForWhatThePeerGranted() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().outboundWindow(8).build(), producer);
    transport.inject(Wire.requestStream(1, 3, "go"));
    producer.take();
    Loop.settle(loop);
    assertThat(producer.grants).containsExactly(3L);
    transport.inject(Wire.requestN(1, 100));
    Loop.settle(loop);
    // Topped up to one window (8), not to the peer's 103.
    assertThat(producer.requested).hasValue(8);
    StreamHandle h = producer.handle();
    for (int i = 0; i < 8; i++) {
      h.next(msg("m" + i));
    }
    Loop.settle(loop);
    assertThat(producer.requested.get()).isLessThanOrEqualTo(103).isGreaterThan(8);
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).hasSize(8).allSatisfy(s -> assertThat(s.type()).isEqualTo(FrameType.PAYLOAD));
  }

  @Test
  void producerSendingBeyondDemandFailsTheStreamWithoutSending() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 1, "go"));
    producer.take();
    StreamHandle h = producer.handle();
    io.sluice.Message first = msg("ok");
    io.sluice.Message extra = msg("too many");
    h.next(first);
    h.next(extra);
    Wire.Sent p = transport.next(FrameType.PAYLOAD);
    assertThat(p.dataUtf8()).isEqualTo("ok");
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.APPLICATION_ERROR);
    transport.assertNothingSent();
    assertThat(extra.refCnt()).isZero();
    assertThat(producer.take()).startsWith("error:");
  }

  @Test
  void requestNOfZeroIsInvalidAndTheConnectionStaysUp() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 1, "go"));
    expectPayloads(1, 0, 1);
    transport.inject(Wire.requestN(1, 0));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("INVALID");
    transport.assertNothingSent();
    producer.take(); // request-stream
    assertThat(producer.take()).startsWith("error:").contains("InvalidException");
    // The stream is gone, the connection is not.
    transport.inject(Wire.requestN(1, 5));
    transport.assertNothingSent();
    transport.inject(Wire.requestResponse(3, null, "still there?"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:still there?");
  }

  @Test
  void initialRequestNOfZeroIsInvalid() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 0, "go"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID);
    transport.assertNothingSent();
    assertThat(producer.events).isEmpty();
  }

  // ---- requester side -----------------------------------------------------------------------

  @Test
  void requesterSendsItsDemandAsRequestN() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), 2, r));
    Wire.Sent req = transport.next(FrameType.REQUEST_STREAM);
    assertThat(req.requestN()).isEqualTo(2);
    assertThat(req.dataUtf8()).isEqualTo("s");
    h.request(3);
    Wire.Sent n = transport.next(FrameType.REQUEST_N);
    assertThat(n.streamId()).isEqualTo(1);
    assertThat(n.requestN()).isEqualTo(3);
    transport.assertNothingSent();
  }

  @Test
  void requesterDemandSaturatesAtIntMaxAndThenSendsNoMoreRequestN() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), 10, r));
    assertThat(transport.next(FrameType.REQUEST_STREAM).requestN()).isEqualTo(10);
    h.request(MAX - 5L); // 10 + 2^31-6 > 2^31-1: unbounded
    assertThat(transport.next(FrameType.REQUEST_N).requestN()).isEqualTo(MAX);
    h.request(100);
    h.request(Long.MAX_VALUE);
    transport.assertNothingSent();
    // Unbounded: any number of PAYLOADs is fine.
    io.netty.buffer.ByteBuf[] many = new io.netty.buffer.ByteBuf[50];
    for (int i = 0; i < many.length; i++) {
      many[i] = Wire.next(1, "x" + i);
    }
    transport.inject(many);
    for (int i = 0; i < many.length; i++) {
      assertThat(r.take("next").data()).isEqualTo("x" + i);
    }
    transport.assertNothingSent();
  }

  @Test
  void requesterLongMaxInitialDemandIsUnboundedOnTheWire() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), Long.MAX_VALUE, r));
    assertThat(transport.next(FrameType.REQUEST_STREAM).requestN()).isEqualTo(MAX);
    h.request(1);
    transport.assertNothingSent();
  }

  @Test
  void requesterRejectsPayloadsBeyondItsCredit() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 2, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.next(1, "a"), Wire.next(1, "b"), Wire.next(1, "c"), Wire.next(1, "d"));
    assertThat(r.take("next").data()).isEqualTo("a");
    assertThat(r.take("next").data()).isEqualTo("b");
    Ev e = r.take("error");
    assertThat(e.error()).isInstanceOf(InvalidException.class);
    Wire.Sent cancel = transport.next(FrameType.CANCEL);
    assertThat(cancel.streamId()).isEqualTo(1);
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void requestNWithNonPositiveLocalDemandFailsTheStream() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), 1, r));
    transport.next(FrameType.REQUEST_STREAM);
    h.request(0);
    Ev e = r.take("error");
    assertThat(e.error()).isInstanceOf(IllegalArgumentException.class);
    // The peer is told the stream is over, with the only frame a request-stream requester may
    // send to end it: CANCEL (ERROR from a requester exists only on a channel).
    Wire.Sent end = transport.next(FrameType.CANCEL);
    assertThat(end.streamId()).isEqualTo(1);
    transport.assertNothingSent();
  }

  @Test
  void requesterErrorOnARequestStreamOrResponseIsSentAsCancel() {
    client(opts().build());
    Recorder rs = new Recorder();
    Recorder rr = new Recorder();
    StreamHandle hs = Loop.call(loop, () -> conn.requestStream(msg("s"), 1, rs));
    StreamHandle hr = Loop.call(loop, () -> conn.requestResponse(msg("r"), rr));
    transport.next(FrameType.REQUEST_STREAM);
    transport.next(FrameType.REQUEST_RESPONSE);
    hs.error(new IllegalStateException("local failure"));
    hr.error(new IllegalStateException("local failure"));
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(3);
    assertThat(rs.take("error").error()).hasMessage("local failure");
    assertThat(rr.take("error").error()).hasMessage("local failure");
    transport.assertNothingSent();
  }

  @Test
  void channelResponderRejectsInboundPayloadsBeyondWhatItGranted() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    assertThat(producer.take()).isEqualTo("request-channel:first");
    StreamHandle h = producer.handle();
    h.request(2);
    Wire.Sent n = transport.next(FrameType.REQUEST_N);
    assertThat(n.requestN()).isEqualTo(2);
    transport.inject(Wire.next(1, "a"), Wire.next(1, "b"), Wire.next(1, "c"));
    assertThat(producer.take()).isEqualTo("inbound:a");
    assertThat(producer.take()).isEqualTo("inbound:b");
    assertThat(producer.take()).startsWith("error:").contains("InvalidException");
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID);
    transport.assertNothingSent();
  }

  @Test
  void channelRequesterSendsNoPayloadBeforeRequestN() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 4, r));
    Wire.Sent req = transport.next(FrameType.REQUEST_CHANNEL);
    assertThat(req.requestN()).isEqualTo(4);
    assertThat(req.has(Frames.FLAG_COMPLETE)).isFalse();
    assertThat(r.all).isEmpty(); // no outbound demand yet
    transport.inject(Wire.requestN(1, 2));
    assertThat(r.take("request").n()).isEqualTo(2);
    h.next(msg("second"));
    h.next(msg("third"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("second");
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("third");
    io.sluice.Message beyond = msg("fourth");
    h.next(beyond);
    Loop.settle(loop);
    assertThat(beyond.refCnt()).isZero();
    assertThat(r.take("error").error()).isInstanceOf(IllegalStateException.class);
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
    transport.assertNothingSent();
  }

  @Test
  void requestResponseIsCompletedByAPayloadWithoutCompleteFlag() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("q"), r));
    Wire.Sent req = transport.next(FrameType.REQUEST_RESPONSE);
    assertThat(req.streamId()).isEqualTo(1);
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT, "md", "answer"));
    Ev n = r.take("next");
    assertThat(n.data()).isEqualTo("answer");
    assertThat(n.metadata()).isEqualTo("md");
    r.take("complete");
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    transport.inject(Wire.next(1, "late"));
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
  }

  // ---- when REQUEST_N leaves: early in a read batch when the peer may be waiting for it --------

  /**
   * A channel responder that asks for {@code initial}, then {@code every} more after each {@code
   * every} inbound messages; on each inbound message it notes how many REQUEST_N frames the peer
   * has received so far (what was flushed before that message was handled).
   */
  private final class Replenisher implements io.sluice.Responder {
    final int initial;
    final int every;
    final List<Integer> requestNsSeenAtEachMessage = new java.util.concurrent.CopyOnWriteArrayList<>();
    int received;

    Replenisher(int initial, int every) {
      this.initial = initial;
      this.every = every;
    }

    int requestNsFlushed() {
      int n = 0;
      for (Wire.Sent s : transport.sent) {
        if (s.type() == FrameType.REQUEST_N) {
          n++;
        }
      }
      return n;
    }

    @Override
    public io.sluice.StreamListener requestChannel(
        io.sluice.Message first, boolean inboundComplete, StreamHandle channel) {
      first.release();
      channel.request(initial);
      return new io.sluice.StreamListener() {
        @Override
        public void onNext(io.sluice.Message m) {
          m.release();
          requestNsSeenAtEachMessage.add(requestNsFlushed());
          if (++received % every == 0) {
            channel.request(every);
          }
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }
  }

  private static io.netty.buffer.ByteBuf[] nexts(int id, int count) {
    io.netty.buffer.ByteBuf[] frames = new io.netty.buffer.ByteBuf[count];
    for (int i = 0; i < count; i++) {
      frames[i] = Wire.next(id, "m" + i);
    }
    return frames;
  }

  @Test
  void requestNThePeerMayWaitForLeavesBeforeTheRestOfTheReadBatchIsHandled() {
    // Granting 2 when the peer holds only 2 of its 4: it has used half of what it may send, and
    // the batch we are reading may hold all of it. The grant is flushed as soon as the message
    // that prompted it is handled, so the peer produces while we handle the rest of the batch.
    Replenisher handler = new Replenisher(4, 2);
    acceptedServer(opts().build(), handler);
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    assertThat(transport.next(FrameType.REQUEST_N).requestN()).isEqualTo(4);
    transport.inject(nexts(1, 4));
    Loop.settle(loop);
    // m0, m1: nothing new yet; m1 asks for 2 (urgent), flushed before m2 is handled. m3 asks for
    // 2 again: one early flush per read batch at most, so it leaves with the batch's flush.
    assertThat(handler.requestNsSeenAtEachMessage).containsExactly(0, 0, 1, 1);
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).hasSize(2).allSatisfy(n -> {
      assertThat(n.type()).isEqualTo(FrameType.REQUEST_N);
      assertThat(n.requestN()).isEqualTo(2);
    });
  }

  @Test
  void smallTopUpsWhileThePeerHoldsPlentyOfCreditWaitForTheEndOfTheBatch() {
    // Asking for 1 per message with 7 still granted: the peer is far from running dry, so the
    // REQUEST_Ns are batched into the read batch's single flush.
    Replenisher handler = new Replenisher(8, 1);
    acceptedServer(opts().build(), handler);
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    assertThat(transport.next(FrameType.REQUEST_N).requestN()).isEqualTo(8);
    transport.inject(nexts(1, 4));
    Loop.settle(loop);
    assertThat(handler.requestNsSeenAtEachMessage).containsExactly(0, 0, 0, 0);
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).hasSize(4).allSatisfy(n -> assertThat(n.requestN()).isEqualTo(1));
  }

  @Test
  void earlyFlushedGrantsNeverExceedWhatTheHandlerAskedFor() {
    // Many batches of an echo-like handler, each holding all the peer may send: every REQUEST_N
    // on the wire is one the handler asked for, no more.
    Replenisher handler = new Replenisher(4, 2);
    acceptedServer(opts().build(), handler);
    transport.inject(Wire.requestChannel(1, 1, "first", false));
    long granted = transport.next(FrameType.REQUEST_N).requestN();
    int delivered = 0;
    for (int batch = 0; batch < 10; batch++) {
      int count = (int) (granted - delivered);
      transport.inject(nexts(1, count));
      delivered += count;
      Loop.settle(loop);
      for (Wire.Sent n : transport.drain()) {
        assertThat(n.type()).isEqualTo(FrameType.REQUEST_N);
        granted += n.requestN();
      }
      assertThat(granted).isEqualTo(4 + 2L * (handler.received / 2));
    }
    // Every message was within the credit: no ERROR[INVALID], the channel is still open.
    assertThat(handler.received).isEqualTo(delivered);
    assertThat(Loop.call(loop, conn::activeStreams)).isEqualTo(1);
  }
}
