package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.ErrorCode;
import io.sluice.StreamHandle;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every resource limit, breached, with the error code it must produce. */
class LimitsEngineTest extends EngineTestBase {

  private void assertConnectionError() {
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CONNECTION_ERROR");
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isInstanceOf(ConnectionErrorException.class);
    transport.assertNothingSent();
  }

  @Test
  void oversizedFrameIsAConnectionError() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxFrameSize(1024).build(), producer);
    transport.inject(Wire.frame(1, FrameType.REQUEST_RESPONSE, 0, 0, null, Wire.pattern(1100, 1)));
    assertConnectionError();
    assertThat(producer.events).doesNotContain("request-response");
  }

  @Test
  void frameAtTheLimitIsFine() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxFrameSize(1024).build(), producer);
    transport.inject(Wire.frame(1, FrameType.REQUEST_RESPONSE, 0, 0, null, Wire.pattern(1018, 1)));
    assertThat(transport.next(FrameType.PAYLOAD).streamId()).isEqualTo(1);
  }

  @Test
  void oversizedFrameBeforeSetupIsAConnectionError() {
    server(opts().maxFrameSize(256).build(), new Producers.Counting(-1));
    transport.inject(Wire.frame(1, FrameType.REQUEST_RESPONSE, 0, 0, null, Wire.pattern(300, 1)));
    assertConnectionError();
  }

  @Test
  void streamsBeyondMaxActiveAreRejected() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxActiveStreams(2).build(), producer);
    transport.inject(
        Wire.requestStream(1, 1, "a"),
        Wire.requestChannel(3, 1, "b", false),
        Wire.requestStream(5, 1, "c"),
        Wire.requestResponse(7, null, "d"),
        Wire.fireAndForget(9, null, "fnf does not count"));
    Wire.Sent r5 = transport.next(FrameType.ERROR);
    assertThat(r5.streamId()).isEqualTo(5);
    assertThat(ErrorCode.name(r5.errorCode())).isEqualTo("REJECTED");
    Wire.Sent r7 = transport.next(FrameType.ERROR);
    assertThat(r7.streamId()).isEqualTo(7);
    assertThat(r7.errorCode()).isEqualTo(ErrorCode.REJECTED);
    transport.assertNothingSent();
    assertThat(producer.take()).isEqualTo("request-stream:a");
    assertThat(producer.take()).isEqualTo("request-channel:b");
    assertThat(producer.take()).isEqualTo("fnf:fnf does not count");
    // One finishes: there is room again.
    StreamHandle a = producer.handle();
    a.nextAndComplete(msg("a-done"));
    assertThat(transport.next(FrameType.PAYLOAD).streamId()).isEqualTo(1);
    transport.inject(Wire.requestStream(11, 1, "e"));
    assertThat(producer.take()).isEqualTo("request-stream:e");
    transport.assertNothingSent();
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void requesterRefusesToOpenMoreThanMaxActiveStreams() {
    client(opts().maxActiveStreams(2).build());
    Recorder a = new Recorder();
    Recorder b = new Recorder();
    Recorder c = new Recorder();
    io.sluice.Message third = msg("c");
    Loop.run(
        loop,
        () -> {
          conn.requestStream(msg("a"), 1, a);
          conn.requestStream(msg("b"), 1, b);
          conn.requestStream(third, 1, c);
        });
    assertThat(c.take("error").error()).isInstanceOf(RejectedException.class);
    assertThat(third.refCnt()).isZero();
    assertThat(transport.drain()).hasSize(2);
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("3-byte frame", (Supplier<ByteBuf>) () -> Wire.ALLOC.buffer().writeMedium(1)),
        Arguments.of(
            "metadata length past the end",
            (Supplier<ByteBuf>)
                () -> {
                  ByteBuf f = Wire.ALLOC.buffer();
                  Frames.writeHeader(f, 1, FrameType.REQUEST_RESPONSE, Frames.FLAG_METADATA);
                  Frames.writeU24(f, 100);
                  f.writeBytes(new byte[10]);
                  return f;
                }),
        Arguments.of("M flag without room for the length",
            (Supplier<ByteBuf>) () -> Wire.raw(1, FrameType.PAYLOAD, Frames.FLAG_METADATA | Frames.FLAG_NEXT, new byte[] {0})),
        Arguments.of("short REQUEST_N", (Supplier<ByteBuf>) () -> Wire.raw(1, FrameType.REQUEST_N, 0, new byte[] {0, 1})),
        Arguments.of("short REQUEST_STREAM", (Supplier<ByteBuf>) () -> Wire.raw(1, FrameType.REQUEST_STREAM, 0, new byte[] {0})),
        Arguments.of("short ERROR", (Supplier<ByteBuf>) () -> Wire.raw(1, FrameType.ERROR, 0, new byte[] {0})),
        Arguments.of("short KEEPALIVE", (Supplier<ByteBuf>) () -> Wire.raw(0, FrameType.KEEPALIVE, 0x80, new byte[] {0, 0})),
        Arguments.of("unknown type without I", (Supplier<ByteBuf>) () -> Wire.raw(1, 0x1F, 0, new byte[] {1, 2, 3})),
        Arguments.of("reserved type 0", (Supplier<ByteBuf>) () -> Wire.raw(0, 0, 0, new byte[0])),
        Arguments.of("LEASE on a stream", (Supplier<ByteBuf>) () -> Wire.raw(1, FrameType.LEASE, 0, new byte[8])));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedFrameIsAConnectionError(String name, Supplier<ByteBuf> frame) {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(frame.get());
    assertConnectionError();
  }

  @Test
  void unknownTypeWithIgnoreFlagIsIgnored() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(
        Wire.raw(1, 0x1F, Frames.FLAG_IGNORE, new byte[] {1, 2, 3}),
        Wire.raw(0, 0x1E, Frames.FLAG_IGNORE, new byte[0]),
        Wire.requestResponse(1, null, "after"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:after");
    transport.assertNothingSent();
  }

  // ---- outbound back-pressure -------------------------------------------------------------------

  @Test
  void producerIsNotAskedWhileTheTransportIsUnwritable() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().outboundWindow(8).build(), producer);
    transport.setWritable(false);
    // Unwritable alone does not stop reading (only unpaid output does, see below).
    assertThat(transport.readEnabled()).isTrue();
    transport.inject(Wire.requestStream(1, Integer.MAX_VALUE, "go"));
    assertThat(producer.take()).isEqualTo("request-stream:go");
    Loop.settle(loop);
    assertThat(producer.requested).as("demand handed out while unwritable").hasValue(0);
    transport.assertNothingSent();
    // Cancel from the peer: stop.
    producer.emit = false;
    transport.setWritable(true);
    assertThat(transport.readEnabled()).isTrue();
    Loop.settle(loop);
    assertThat(producer.requested).hasValue(8);
    transport.inject(Wire.cancel(1));
    assertThat(producer.take()).isEqualTo("cancel");
  }

  @Test
  void aPeerThatNeverReadsBoundsWhatTheProducerIsAskedFor() {
    int window = 16;
    int hwm = 4096;
    int size = 100;
    // Records demand; the responder below emits fixed-size messages synchronously as it arrives.
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().outboundWindow(window).maxQueuedOutboundBytes(hwm).build(), new io.sluice.Responder() {
      @Override
      public io.sluice.StreamListener requestStream(io.sluice.Message request, StreamHandle stream) {
        request.release();
        return new Recorder() {
          @Override
          public void onRequest(long n) {
            producer.requested.addAndGet(n);
            producer.grants.add(n);
            for (long i = 0; i < n; i++) {
              producer.produced.incrementAndGet();
              stream.next(io.sluice.Message.of(Wire.bytes(Wire.pattern(size, (int) i))));
            }
          }

          @Override
          public void onCancel() {
            producer.events.add("cancel");
          }
        };
      }
    });
    transport.setPeerReading(false);
    transport.inject(Wire.requestStream(1, Integer.MAX_VALUE, "flood"));
    Loop.settle(loop);
    long asked = producer.requested.get();
    assertThat(asked).isPositive();
    // Whatever fit below the high water mark, plus at most what was already granted (one window
    // and the half-window top-up), never the peer's 2^31-1.
    assertThat(asked).isLessThanOrEqualTo(hwm / size + 2L * window);
    // Stream PAYLOADs are paid for with credit: they do not stop reading (the peer's REQUEST_N
    // and CANCEL must still get through).
    assertThat(transport.readEnabled()).isTrue();
    assertThat(producer.grants).allSatisfy(g -> assertThat(g).isLessThanOrEqualTo(window));
    long queued = transport.queuedBytes();
    assertThat(queued).isLessThanOrEqualTo(hwm + 2L * window * (size + 16));
    Loop.settle(loop);
    assertThat(producer.requested.get()).as("stable while the peer does not read").isEqualTo(asked);
    // The peer reads again: production resumes, and the peer's cancel stops it.
    transport.setPeerReading(true);
    Loop.settle(loop);
    assertThat(producer.requested.get()).isGreaterThan(asked);
    transport.inject(Wire.cancel(1));
    Loop.settle(loop);
    assertThat(producer.events).contains("cancel");
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).allSatisfy(s -> assertThat(s.type()).isEqualTo(FrameType.PAYLOAD));
    assertThat((long) sent.size()).isEqualTo(producer.produced.get());
  }

  @Test
  void aFloodOfRequestsFromAPeerThatDoesNotReadStopsOurReading() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().maxQueuedOutboundBytes(1024).build(), producer);
    transport.setPeerReading(false);
    ByteBuf[] flood = new ByteBuf[200];
    for (int i = 0; i < flood.length; i++) {
      flood[i] = Wire.requestResponse(2 * i + 1, null, "request number " + i);
    }
    transport.inject(flood);
    assertThat(transport.readEnabled()).isFalse();
    assertThat(transport.unread()).isPositive();
    // Answers are written without credit: bounded by the water mark plus as much again.
    assertThat(transport.queuedBytes()).isLessThanOrEqualTo(2 * 1024 + 64);
    transport.setPeerReading(true);
    transport.awaitAllRead();
    assertThat(transport.drain()).hasSize(200);
  }

  @Test
  void aKeepAliveFloodFromAPeerThatDoesNotReadQueuesBoundedEchoes() {
    acceptedServer(
        opts().maxQueuedOutboundBytes(1024).maxKeepAlivesPerSecond(1000).build(),
        new Producers.Counting(-1));
    transport.setPeerReading(false);
    ByteBuf[] flood = new ByteBuf[100];
    for (int i = 0; i < flood.length; i++) {
      flood[i] = Wire.keepAlive(true, 0, Wire.pattern(50, i));
    }
    transport.inject(flood);
    // Bounded: what fit below the high water mark plus one echo; the rest are dropped.
    assertThat(transport.queuedBytes()).isLessThanOrEqualTo(1024 + 2 * 64);
    transport.setPeerReading(true);
    List<Wire.Sent> echoes = transport.drain();
    assertThat(echoes.size()).isBetween(1, 99);
    assertThat(echoes).allSatisfy(k -> assertThat(k.has(Frames.FLAG_KEEPALIVE_RESPOND)).isFalse());
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void aFloodOfRejectedRequestsFromAPeerThatDoesNotReadStopsOurReading() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxActiveStreams(1).maxQueuedOutboundBytes(1024).build(), producer);
    transport.setPeerReading(false);
    ByteBuf[] flood = new ByteBuf[300];
    for (int i = 0; i < flood.length; i++) {
      flood[i] = Wire.requestStream(2 * i + 1, 1, "r" + i);
    }
    transport.inject(flood);
    assertThat(transport.readEnabled()).isFalse();
    transport.setPeerReading(true);
    transport.awaitAllRead();
    assertThat(transport.drain())
        .hasSize(299)
        .allSatisfy(e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.REJECTED));
  }

  @Test
  void inboundDataKeepsFlowingWhileUnwritable() {
    // Both peers unwritable and both no longer reading would wait for each other forever: data
    // the peer sends within our credit is still read while we cannot write.
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().maxQueuedOutboundBytes(1024).build(), producer);
    transport.inject(Wire.requestChannel(1, 5, "first", false));
    StreamHandle h = producer.handle();
    h.request(100);
    transport.next(FrameType.REQUEST_N);
    transport.setWritable(false);
    ByteBuf[] data = new ByteBuf[50];
    for (int i = 0; i < data.length; i++) {
      data[i] = Wire.next(1, "in" + i);
    }
    transport.inject(data);
    assertThat(transport.readEnabled()).isTrue();
    producer.take(); // request-channel
    for (int i = 0; i < data.length; i++) {
      assertThat(producer.take()).isEqualTo("inbound:in" + i);
    }
  }

  @Test
  void lengthPrefixedFramingMatchesTheFrames() {
    server(opts().build(), new Producers.Counting(3), Framing.LENGTH_PREFIXED);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestStream(1, 10, "go"), Wire.requestResponse(3, "m", "x".repeat(5000)));
    // FakeTransport splits the byte stream at the u24 prefixes; a wrong prefix breaks decoding.
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).extracting(Wire.Sent::streamId).containsExactly(1, 1, 1, 3);
    assertThat(sent.get(3).dataUtf8()).isEqualTo("rr:" + "x".repeat(5000));
  }
}
