package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.CustomErrorException;
import io.sluice.exceptions.InvalidException;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Cancel, errors and the frames a peer may send on streams, including the odd ones. */
class StreamFramesEngineTest extends EngineTestBase {

  @Test
  void framesForUnknownStreamsAreIgnored() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(
        Wire.cancel(41),
        Wire.cancel(0),
        Wire.next(43, "stray"),
        Wire.next(0, "stray on zero"),
        Wire.complete(45),
        Wire.error(47, ErrorCode.APPLICATION_ERROR, "stray"),
        Wire.requestN(49, 5),
        Wire.requestN(0, 5),
        Wire.frame(53, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.b("frag")));
    transport.assertNothingSent();
    assertThat(transport.isClosed()).isFalse();
    Loop.settle(loop);
    assertThat(producer.events).isEmpty();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    transport.inject(Wire.requestResponse(1, null, "still fine"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:still fine");
  }

  @Test
  void fireAndForgetAndMetadataPushReachTheResponder() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.fireAndForget(1, "md", "hello"), Wire.metadataPush(0, "pushed"));
    assertThat(producer.take()).isEqualTo("fnf:hello");
    assertThat(producer.take()).isEqualTo("metadata-push:pushed");
    transport.assertNothingSent();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  /**
   * rsocket-rust 0.7.5 sends METADATA_PUSH on its requester's next stream id and without the M
   * flag: these are its client's bytes for a push of "rust" as its first frame after SETUP.
   * rsocket-java takes such a frame as a metadata push, and so does Sluice (the spec says to
   * ignore it, which lost that client's pushes without a word: docs/conformance.md, rule 43).
   * The id is not a stream: the client's next request comes on the id after it.
   */
  @Test
  void rsocketRustsMetadataPushOnAStreamIdReachesTheResponder() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.bytes(new byte[] {0, 0, 0, 1, 0x30, 0x00, 'r', 'u', 's', 't'}));
    assertThat(producer.take()).isEqualTo("metadata-push:rust");
    transport.assertNothingSent();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    transport.inject(Wire.requestResponse(3, null, "next id"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:next id");
  }

  /** The same from a server (whose requester's ids are even), to a Sluice client. */
  @Test
  void aMetadataPushOnAServerStreamIdReachesTheClientsResponder() {
    Producers.Counting producer = new Producers.Counting(-1);
    client(opts().build(), r -> producer);
    transport.inject(Wire.bytes(new byte[] {0, 0, 0, 2, 0x30, 0x00, 'f', 'r', 'o', 'm', ' ', 's'}));
    assertThat(producer.take()).isEqualTo("metadata-push:from s");
    transport.assertNothingSent();
    assertThat(conn.isOpen()).isTrue();
  }

  /**
   * METADATA_PUSH cannot be fragmented: one whose frame would not fit the u24 length, or exceed
   * the frame size a peer with our limits accepts, is refused with a clear error (and released)
   * instead of putting the byte stream out of sync or getting the connection closed.
   */
  @ParameterizedTest
  @ValueSource(ints = {64 * 1024, 0xFFFFFF})
  void aMetadataPushTooLargeForOneFrameIsRefusedNotSent(int maxFrameSize) {
    client(opts().maxFrameSize(maxFrameSize).build(), r -> new Responder() {}, Framing.LENGTH_PREFIXED);
    int fits = maxFrameSize - Frames.HEADER_SIZE;
    Recorder refused = new Recorder();
    Message tooBig = Message.of(Wire.bytes(Wire.pattern(fits + 1, 3)), Wire.ALLOC.buffer(0));
    conn.metadataPush(tooBig, refused);
    Ev e = refused.take("error");
    assertThat(e.error())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("METADATA_PUSH")
        .hasMessageContaining(Integer.toString(maxFrameSize));
    assertThat(tooBig.refCnt()).isZero();
    transport.assertNothingSent();
    assertThat(conn.isOpen()).isTrue();

    Recorder sent = new Recorder();
    conn.metadataPush(Message.of(Wire.bytes(Wire.pattern(fits, 4)), Wire.ALLOC.buffer(0)), sent);
    sent.take("complete");
    assertThat(transport.next(FrameType.METADATA_PUSH).size()).isEqualTo(maxFrameSize);
  }

  @Test
  void requesterFireAndForgetAndMetadataPushOnTheWire() {
    client(opts().build());
    Recorder fnf = new Recorder();
    Recorder push = new Recorder();
    Message pushed = msg("the-metadata", "ignored data");
    conn.fireAndForget(msg("m", "fire"), fnf);
    conn.metadataPush(pushed, push);
    fnf.take("complete");
    push.take("complete");
    Wire.Sent f = transport.next(FrameType.REQUEST_FNF);
    assertThat(f.streamId()).isEqualTo(1);
    assertThat(f.metadataUtf8()).isEqualTo("m");
    assertThat(f.dataUtf8()).isEqualTo("fire");
    Wire.Sent p = transport.next(FrameType.METADATA_PUSH);
    assertThat(p.streamId()).isZero();
    assertThat(p.has(Frames.FLAG_METADATA)).isTrue();
    assertThat(p.metadataUtf8()).isEqualTo("the-metadata");
    assertThat(p.size()).isEqualTo(Frames.HEADER_SIZE + "the-metadata".length());
    assertThat(pushed.refCnt()).isZero();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void metadataAndEmptyMetadataAreDistinct() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(Message.of(Wire.utf8(""), Wire.utf8("d")), 5, r));
    Wire.Sent req = transport.next(FrameType.REQUEST_STREAM);
    assertThat(req.has(Frames.FLAG_METADATA)).isTrue();
    assertThat(req.metadata()).isEmpty();
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT, "", "with empty md"), Wire.next(1, "without md"));
    Ev a = r.take("next");
    assertThat(a.metadata()).isEqualTo("");
    Ev b = r.take("next");
    assertThat(b.metadata()).isNull();
  }

  static Stream<Arguments> errorCodes() {
    return Stream.of(
        Arguments.of(ErrorCode.APPLICATION_ERROR, ApplicationErrorException.class),
        Arguments.of(ErrorCode.REJECTED, RejectedException.class),
        Arguments.of(ErrorCode.CANCELED, CanceledException.class),
        Arguments.of(ErrorCode.INVALID, InvalidException.class),
        Arguments.of(0x301, CustomErrorException.class),
        Arguments.of(0xFFFFFFFE, CustomErrorException.class));
  }

  @ParameterizedTest
  @MethodSource("errorCodes")
  void errorFrameFailsTheRequesterStreamWithItsCode(int code, Class<? extends SluiceException> type) {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.next(1, "before"), Wire.error(1, code, "broken: ünïcödé"), Wire.next(1, "after"));
    assertThat(r.take("next").data()).isEqualTo("before");
    Ev e = r.take("error");
    assertThat(e.error()).isInstanceOf(type).hasMessage("broken: ünïcödé");
    assertThat(e.code()).isEqualTo(code);
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  static Stream<Arguments> localErrors() {
    return Stream.of(
        Arguments.of(new ApplicationErrorException("app"), ErrorCode.APPLICATION_ERROR, "app"),
        // A handler's REJECTED may come after it did work: only the engine's refusals are REJECTED.
        Arguments.of(new RejectedException("busy"), ErrorCode.APPLICATION_ERROR, "busy"),
        Arguments.of(new InvalidException("bad"), ErrorCode.INVALID, "bad"),
        Arguments.of(new CustomErrorException(0x305, "custom"), 0x305, "custom"),
        Arguments.of(new ConnectionErrorException("not on a stream"), ErrorCode.APPLICATION_ERROR, "not on a stream"),
        Arguments.of(new IllegalStateException("plain"), ErrorCode.APPLICATION_ERROR, "plain"),
        Arguments.of(new NullPointerException(), ErrorCode.APPLICATION_ERROR, "java.lang.NullPointerException"));
  }

  @ParameterizedTest
  @MethodSource("localErrors")
  void responderErrorIsSentWithTheRightCode(Throwable error, int code, String message) {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 5, "s"));
    StreamHandle h = producer.handle();
    h.next(msg("one"));
    h.error(error);
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("one");
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo(ErrorCode.name(code));
    assertThat(e.errorMessage()).isEqualTo(message);
    Message late = msg("late");
    h.next(late);
    h.complete();
    transport.assertNothingSent();
    assertThat(late.refCnt()).isZero();
  }

  @Test
  void throwingHandlerFailsItsStreamOnly() {
    Responder throwing =
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            throw new IllegalStateException("handler blew up");
          }
        };
    acceptedServer(opts().build(), throwing);
    transport.inject(Wire.requestResponse(1, null, "q"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.APPLICATION_ERROR);
    assertThat(e.errorMessage()).isEqualTo("handler blew up");
    assertThat(transport.isClosed()).isFalse();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void defaultResponderAnswersWithApplicationError() {
    acceptedServer(opts().build(), new Responder() {});
    transport.inject(
        Wire.requestResponse(1, null, "q"),
        Wire.requestStream(3, 1, "q"),
        Wire.requestChannel(5, 1, "q", false),
        Wire.fireAndForget(7, null, "dropped"),
        Wire.metadataPush(0, "dropped"));
    for (int id : new int[] {1, 3, 5}) {
      Wire.Sent e = transport.next(FrameType.ERROR);
      assertThat(e.streamId()).isEqualTo(id);
      assertThat(e.errorCode()).isEqualTo(ErrorCode.APPLICATION_ERROR);
    }
    transport.assertNothingSent();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void peerCancelStopsTheResponderAndNothingIsSentBack() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 10, "s"));
    StreamHandle h = producer.handle();
    producer.take();
    h.next(msg("one"));
    transport.next(FrameType.PAYLOAD);
    transport.inject(Wire.cancel(1));
    assertThat(producer.take()).isEqualTo("cancel");
    Message late = msg("after cancel");
    h.next(late);
    h.complete();
    h.error(new RuntimeException("x"));
    transport.assertNothingSent();
    assertThat(late.refCnt()).isZero();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void responderCancelSendsCanceled() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 10, "s"));
    producer.handle().cancel();
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo("CANCELED");
    transport.assertNothingSent();
  }

  @Test
  void channelResponderCancelAfterCompletingItsHalfSendsCancel() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestChannel(1, 5, "first", false));
    StreamHandle h = producer.handle();
    h.complete();
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_COMPLETE)).isTrue();
    // Only the requester's half is left: canceling it is a CANCEL, not an ERROR.
    h.cancel();
    Wire.Sent c = transport.next(FrameType.CANCEL);
    assertThat(c.streamId()).isEqualTo(1);
    transport.inject(Wire.next(1, "too late"), Wire.complete(1));
    transport.assertNothingSent();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void requesterCancelMidStreamSendsCancelAndSilencesTheListener() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), 10, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.next(1, "one"));
    r.take("next");
    h.cancel();
    Wire.Sent c = transport.next(FrameType.CANCEL);
    assertThat(c.streamId()).isEqualTo(1);
    transport.inject(Wire.next(1, "two"), Wire.complete(1));
    Loop.settle(loop);
    assertThat(r.events).isEmpty();
    h.cancel();
    h.request(5);
    transport.assertNothingSent();
  }

  @Test
  void requesterCancelAfterCompletionIsANoOp() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestStream(msg("s"), 10, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "only"));
    r.take("next");
    r.take("complete");
    h.cancel();
    h.request(3);
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
  }

  @Test
  void cancelFromAnotherThreadBeforeTheRequestStartsSendsNothing() {
    client(opts().build());
    Recorder r = new Recorder();
    Message m = msg("never sent");
    // Both calls come from this (non-loop) thread, in order: the cancel is queued behind the start.
    Loop.run(loop, () -> {}); // the loop is idle
    StreamHandle h = conn.requestStream(m, 1, r);
    h.cancel();
    Loop.settle(loop);
    java.util.List<Wire.Sent> sent = transport.drain();
    // Either nothing (cancel won) or REQUEST_STREAM then CANCEL on the same id, never stream 0.
    assertThat(sent).allSatisfy(s -> assertThat(s.streamId()).isNotZero());
    assertThat(m.refCnt()).isZero();
    assertThat(r.events).isEmpty();
  }

  @Test
  void channelHalvesEndIndependently() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 5, r));
    transport.next(FrameType.REQUEST_CHANNEL);
    transport.inject(Wire.requestN(1, 3));
    assertThat(r.take("request").n()).isEqualTo(3);
    // Responder completes its half: our inbound completes, our outbound goes on.
    transport.inject(Wire.next(1, "in"), Wire.complete(1));
    assertThat(r.take("next").data()).isEqualTo("in");
    r.take("complete");
    h.next(msg("out"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("out");
    assertThat(Loop.call(loop, conn::activeStreams)).isEqualTo(1);
    h.complete();
    Wire.Sent c = transport.next(FrameType.PAYLOAD);
    assertThat(c.has(Frames.FLAG_COMPLETE)).isTrue();
    assertThat(c.has(Frames.FLAG_NEXT)).isFalse();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void responderCancelOfTheChannelRequesterOutbound() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 5, r));
    transport.next(FrameType.REQUEST_CHANNEL);
    transport.inject(Wire.requestN(1, 3), Wire.cancel(1));
    assertThat(r.take("request").n()).isEqualTo(3);
    assertThat(r.take("cancel").kind()).isEqualTo("cancel");
    Message m = msg("dropped");
    h.next(m);
    Loop.settle(loop);
    assertThat(m.refCnt()).isZero();
    transport.assertNothingSent();
    // Inbound still works.
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "in"));
    assertThat(r.take("next").data()).isEqualTo("in");
    r.take("complete");
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void channelRequesterErrorEndsBothHalves() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle h = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 5, r));
    transport.next(FrameType.REQUEST_CHANNEL);
    h.error(new IllegalStateException("upstream failed"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.APPLICATION_ERROR);
    assertThat(e.errorMessage()).isEqualTo("upstream failed");
    assertThat(r.take("error").error()).hasMessage("upstream failed");
    transport.inject(Wire.next(1, "late"));
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
  }

  @Test
  void channelRequestWithCompleteFlag() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestChannel(msg("only"), true, 5, r));
    Wire.Sent req = transport.next(FrameType.REQUEST_CHANNEL);
    assertThat(req.has(Frames.FLAG_COMPLETE)).isTrue();
    transport.inject(Wire.requestN(1, 4)); // nothing left to send: no demand reaches the listener
    transport.inject(Wire.complete(1));
    r.take("complete");
    assertThat(r.all).extracting(Ev::kind).doesNotContain("request");
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void responderChannelSeesInboundThenCompletes() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestChannel(1, 2, "first", false));
    assertThat(producer.take()).isEqualTo("request-channel:first");
    StreamHandle h = producer.handle();
    transport.assertNothingSent(); // no REQUEST_N before the handler asks
    h.request(5);
    assertThat(transport.next(FrameType.REQUEST_N).requestN()).isEqualTo(5);
    transport.inject(Wire.next(1, "a"), Wire.next(1, "b"), Wire.complete(1));
    assertThat(producer.take()).isEqualTo("inbound:a");
    assertThat(producer.take()).isEqualTo("inbound:b");
    assertThat(producer.take()).isEqualTo("inbound-complete");
    h.request(5); // inbound is over: no REQUEST_N
    transport.assertNothingSent();
    h.next(msg("x"));
    h.next(msg("y"));
    h.complete();
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("x");
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("y");
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_COMPLETE)).isTrue();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void channelRequestWithCompleteGivesTheResponderAFinishedInbound() {
    Producers.Counting producer = new Producers.Counting(2);
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestChannel(1, 2, "only", true));
    assertThat(producer.take()).isEqualTo("request-channel:only:complete");
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("0");
    Wire.Sent last = transport.next(FrameType.PAYLOAD);
    assertThat(last.has(Frames.FLAG_COMPLETE)).isTrue();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void payloadWithNeitherNextNorCompleteIsInvalid() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.payload(1, 0, null, "no flags"));
    assertThat(r.take("error").error()).isInstanceOf(InvalidException.class);
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
  }

  @Test
  void throwingListenerFailsItsStreamNotTheConnection() {
    client(opts().build());
    Recorder r =
        new Recorder() {
          @Override
          public void onNext(Message m) {
            super.onNext(m);
            throw new IllegalStateException("listener bug");
          }
        };
    Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(Wire.next(1, "a"), Wire.next(1, "b"));
    r.take("next");
    assertThat(r.take("error").error()).hasMessage("listener bug");
    assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
    transport.assertNothingSent();
    assertThat(r.events).isEmpty();
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void connectionErrorFromThePeerFailsEveryStream() {
    client(opts().build());
    Recorder a = new Recorder();
    Recorder b = new Recorder();
    Loop.run(
        loop,
        () -> {
          conn.requestStream(msg("a"), 5, a);
          conn.requestChannel(msg("b"), false, 5, b);
        });
    transport.drain();
    transport.inject(Wire.error(0, ErrorCode.CONNECTION_ERROR, "fatal"));
    assertThat(a.take("error").error()).isInstanceOf(ConnectionErrorException.class);
    assertThat(b.take("error").error()).isInstanceOf(ConnectionErrorException.class);
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isInstanceOf(ConnectionErrorException.class).hasMessage("fatal");
    transport.assertNothingSent();
  }
}
