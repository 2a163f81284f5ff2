package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Streams, flow control and errors: rules 23-32, 36, 37 and 39-43 of docs/conformance.md. */
class StreamRulesTest extends ConformanceTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 23: client stream ids are odd from 1, server ids even from 2, stepping by 2")
  void streamIdsOddFromClientEvenFromServer(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Requester requester = client.requester();
    requester.requestResponse(utf8("a"), new Events());
    requester.requestStream(utf8("b"), 1, new Events());
    requester.fireAndForget(utf8("c"), new Events());
    // Calls from the test thread reach the loop in order but may trail a fence, so wait for them.
    assertThat(List.of(client.peer.next(), client.peer.next(), client.peer.next()))
        .extracting(WireFrame::streamId)
        .containsExactly(1, 3, 5);

    RawPeer peer =
        rawClient(
            wire,
            options().build(),
            (setup, serverRequester) -> {
              serverRequester.requestResponse(utf8("s1"), new Events());
              serverRequester.requestStream(utf8("s2"), 1, new Events());
              return new Recorder();
            });
    peer.send(FrameBuilder.setup());
    assertThat(peer.next(REQUEST_RESPONSE).streamId()).isEqualTo(2);
    assertThat(peer.next(REQUEST_STREAM).streamId()).isEqualTo(4);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 24: stream ids are unique among a requester's live streams")
  void streamIdsAreUniqueAmongLiveStreams(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Requester requester = client.requester();
    for (int i = 0; i < 20; i++) {
      requester.requestStream(utf8("live-" + i), 1, new Events());
    }
    List<WireFrame> sent = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sent.add(client.peer.next(REQUEST_STREAM));
    }
    client.peer.assertQuiet();
    assertThat(sent).extracting(WireFrame::streamId).doesNotHaveDuplicates();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 25: initial request N and REQUEST_N must be > 0")
  void requestNMustBePositive(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestStream(1, 0).data("zero"));
    WireFrame invalid = peer.next(ERROR);
    assertThat(invalid.streamId()).isEqualTo(1);
    assertThat(invalid.errorCode()).isEqualTo(INVALID);
    assertThat(responder.pending()).isEmpty();

    peer.send(FrameBuilder.requestStream(3, 1).data("live"));
    Recorder.Call live = responder.take();
    peer.send(FrameBuilder.requestN(3, 0));
    WireFrame invalidN = peer.next(ERROR);
    assertThat(invalidN.streamId()).isEqualTo(3);
    assertThat(invalidN.errorCode()).isEqualTo(INVALID);
    assertThat(live.events().take()).isEqualTo("request:1");
    peer.send(FrameBuilder.requestResponse(5).data("connection still up"));
    assertThat(responder.take().data()).isEqualTo("connection still up");

    // Send side: Sluice refuses to put a non-positive N on the wire (SendRules checks every frame).
    ClientSide client = sluiceClient(wire);
    Events zero = new Events();
    client.requester().requestStream(utf8("n=0"), 0, zero);
    assertThat(zero.take()).startsWith("error:");
    StreamHandle stream = client.requester().requestStream(utf8("n=1"), 1, new Events());
    stream.request(0);
    client.peer.next(REQUEST_STREAM);
    client.peer.next(CANCEL);
    client.peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 26: never more PAYLOADs than the cumulative credit")
  void neverMorePayloadsThanCredit(Wire wire) {
    // A producer that ignores demand and pushes 5 items at a stream that granted 2.
    Recorder responder =
        new Recorder()
            .onStart(
                c -> {
                  if (c.data().equals("greedy")) {
                    for (int i = 0; i < 5; i++) {
                      c.handle().next(utf8("item-" + i));
                    }
                  }
                });
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestStream(1, 2).data("greedy"));
    responder.take();
    long payloads = peer.fence().stream().filter(f -> f.isPayloadWith(N)).count();
    assertThat(payloads).isLessThanOrEqualTo(2);

    // A producer that follows demand: exactly the credit, then more after REQUEST_N.
    peer.send(FrameBuilder.requestStream(3, 1).data("polite"));
    Recorder.Call polite = responder.take();
    assertThat(polite.events().take()).isEqualTo("request:1");
    polite.handle().next(utf8("p0"));
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("p0");
    peer.assertQuiet();
    peer.send(FrameBuilder.requestN(3, 2));
    assertThat(polite.events().take()).isEqualTo("request:2");
    polite.handle().next(utf8("p1"));
    polite.handle().next(utf8("p2"));
    polite.handle().complete();
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("p1");
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("p2");
    WireFrame end = peer.next(PAYLOAD);
    assertThat(end.has(C)).isTrue();
    assertThat(end.has(N)).isFalse();
    peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 27: one REQUEST_CHANNEL per channel; later requester items are PAYLOADs")
  void oneRequestChannelPerChannel(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    StreamHandle channel = client.requester().requestChannel(utf8("a"), false, 1, events);
    WireFrame open = client.peer.next(REQUEST_CHANNEL);
    assertThat(open.initialRequestN()).isEqualTo(1);
    assertThat(open.dataUtf8()).isEqualTo("a");
    client.peer.send(FrameBuilder.requestN(open.streamId(), 2));
    assertThat(events.take()).isEqualTo("request:2");
    channel.next(utf8("b"));
    channel.next(utf8("c"));
    channel.complete();
    List<WireFrame> later =
        List.of(client.peer.next(), client.peer.next(), client.peer.next());
    client.peer.assertQuiet();
    assertThat(later).extracting(WireFrame::type).containsOnly(PAYLOAD);
    assertThat(later).extracting(WireFrame::dataUtf8).containsExactly("b", "c", "");
    assertThat(later.get(2).has(C)).isTrue();
    assertThat(client.peer.all()).filteredOn(f -> f.type() == REQUEST_CHANNEL).hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 28: a channel requester sends no PAYLOAD before it receives REQUEST_N")
  void channelRequesterSendsNoPayloadBeforeRequestN(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    StreamHandle channel = client.requester().requestChannel(utf8("first"), false, 1, events);
    WireFrame open = client.peer.next(REQUEST_CHANNEL);
    client.peer.assertQuiet();
    assertThat(events.drain()).as("no demand signalled before REQUEST_N").isEmpty();
    client.peer.send(FrameBuilder.requestN(open.streamId(), 1));
    assertThat(events.take()).isEqualTo("request:1");
    channel.next(utf8("second"));
    assertThat(client.peer.next(PAYLOAD).dataUtf8()).isEqualTo("second");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 29: the channel responder answers REQUEST_CHANNEL with REQUEST_N (Sluice: as its handler asks)")
  void channelResponderAnswersRequestChannelWithRequestN(Wire wire) {
    Recorder responder =
        new Recorder()
            .onStart(
                c -> {
                  if (c.data().equals("reader")) {
                    c.handle().request(2);
                  }
                });
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestChannel(1, 1).data("reader"));
    WireFrame requestN = peer.next(REQUEST_N);
    assertThat(requestN.streamId()).isEqualTo(1);
    assertThat(requestN.requestN()).as("items beyond the REQUEST_CHANNEL's own").isEqualTo(2);
    Recorder.Call call = responder.take();
    peer.send(FrameBuilder.payload(1, true, false).data("x"));
    peer.send(FrameBuilder.payload(1, true, false).data("y"));
    assertThat(call.events().takeSignal()).isEqualTo("next:x");
    assertThat(call.events().takeSignal()).isEqualTo("next:y");

    // A handler that never reads its inbound never grants credit (documented deviation).
    peer.send(FrameBuilder.requestChannel(3, 1).data("not reading"));
    responder.take();
    peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 30: no PAYLOAD after C in that direction")
  void noPayloadAfterComplete(Wire wire) {
    Recorder responder =
        new Recorder()
            .onStart(
                c -> {
                  c.handle().next(utf8("last"));
                  c.handle().complete();
                  c.handle().next(utf8("after complete"));
                });
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestStream(1, 10).data("s"));
    List<WireFrame> frames = peer.fence();
    assertThat(frames).extracting(WireFrame::type).containsOnly(PAYLOAD);
    assertThat(frames.get(frames.size() - 1).has(C)).isTrue();
    assertThat(frames).extracting(WireFrame::dataUtf8).doesNotContain("after complete");

    // The requester half of a channel: nothing after its C either.
    ClientSide client = sluiceClient(wire);
    StreamHandle channel = client.requester().requestChannel(utf8("a"), false, 1, new Events());
    WireFrame open = client.peer.next(REQUEST_CHANNEL);
    client.peer.send(FrameBuilder.requestN(open.streamId(), 5));
    channel.complete();
    channel.next(utf8("after complete"));
    assertThat(client.peer.next(PAYLOAD).has(C)).isTrue();
    client.peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 31: a PAYLOAD with neither N nor C is never sent, and refused on receive")
  void payloadWithNeitherNextNorCompleteIsRefused(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    client.requester().requestStream(utf8("s"), 5, events);
    WireFrame open = client.peer.next(REQUEST_STREAM);
    client.peer.send(FrameBuilder.payload(open.streamId()).data("neither"));
    assertThat(events.take()).startsWith("error:");
    assertThat(events.drain()).noneMatch(e -> e.startsWith("next:"));
    // Send side: SendRules checks N or C on every PAYLOAD Sluice sends in the whole suite.
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 32: a PAYLOAD without C completes a request-response")
  void payloadWithoutCompleteCompletesRequestResponse(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    client.requester().requestResponse(utf8("q"), events);
    WireFrame request = client.peer.next(REQUEST_RESPONSE);
    client.peer.send(FrameBuilder.payload(request.streamId(), true, false).data("answer"));
    assertThat(events.take()).isEqualTo("next:answer");
    assertThat(events.take()).isEqualTo("complete");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 36: setup/connection error codes only on stream 0, stream codes only on streams > 0")
  void errorCodesOnTheirStreams(Wire wire) {
    // Send side: SendRules checks every ERROR Sluice sends in the suite. Here both kinds occur.
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).data("fail me"));
    responder.take().handle().error(new ApplicationErrorException("nope"));
    WireFrame appError = peer.next(ERROR);
    assertThat(appError.streamId()).isEqualTo(1);
    assertThat(appError.errorCode()).isEqualTo(APPLICATION_ERROR);

    // Receive side: a connection code on a stream ends that stream only.
    peer.send(FrameBuilder.requestStream(3, 1).data("live"));
    Recorder.Call live = responder.take();
    peer.send(FrameBuilder.error(3, CONNECTION_ERROR, "wrong stream"));
    assertThat(live.events().takeSignal()).isEqualTo("error:0x101:wrong stream");
    peer.assertQuiet();

    // A stream code on stream 0 is treated as fatal for the connection.
    peer.send(FrameBuilder.error(0, APPLICATION_ERROR, "stream code on stream 0"));
    peer.assertClosed();
    assertThat(peer.all()).filteredOn(f -> f.type() == ERROR && f.streamId() == 0).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 37: ERROR data is UTF-8 text without a terminator")
  void errorTextIsUtf8WithoutTerminator(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).data("fail"));
    String text = "b\u00f6\u00f6m \u2713 \uD83D\uDE80";
    responder.take().handle().error(new ApplicationErrorException(text));
    WireFrame error = peer.next(ERROR);
    assertThat(error.errorText()).isEqualTo(text);
    assertThat(error.errorTextBytes()).isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 39: a request on a stream id in use is ignored")
  void requestOnAnIdInUseIsIgnored(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestStream(1, 1).data("first"));
    peer.send(FrameBuilder.requestResponse(1).data("same id"));
    peer.send(FrameBuilder.requestChannel(1, 1).data("same id"));
    peer.assertQuiet();
    List<Recorder.Call> calls = responder.pending();
    assertThat(calls).extracting(Recorder.Call::data).containsExactly("first");

    // Also while the id is in use by a request still being reassembled from fragments.
    peer.send(FrameBuilder.requestStream(3, 1).data("frag-").follows(true));
    peer.send(FrameBuilder.requestResponse(3).data("same id mid-fragments"));
    peer.send(FrameBuilder.payload(3).data("ment"));
    assertThat(responder.take().data()).isEqualTo("frag-ment");
    peer.assertQuiet();
    assertThat(responder.pending()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 40: CANCEL on an unknown stream id (including 0) is ignored")
  void cancelOnUnknownStreamIsIgnored(Wire wire) {
    assertIgnoredByBothSides(wire, FrameBuilder.cancel(0), FrameBuilder.cancel(99), FrameBuilder.cancel(100));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 41: ERROR on an unknown stream id is ignored")
  void errorOnUnknownStreamIsIgnored(Wire wire) {
    assertIgnoredByBothSides(
        wire,
        FrameBuilder.error(99, APPLICATION_ERROR, "unknown"),
        FrameBuilder.error(100, CANCELED, "unknown"));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 42: PAYLOAD on an unknown stream id (including 0) is ignored")
  void payloadOnUnknownStreamIsIgnored(Wire wire) {
    assertIgnoredByBothSides(
        wire,
        FrameBuilder.payload(0, true, true).data("x"),
        FrameBuilder.payload(99, true, false).data("x"),
        FrameBuilder.payload(100, false, true));
  }

  /**
   * A departure (docs/conformance.md): the spec says to ignore a METADATA_PUSH on a stream id,
   * but rsocket-rust sends every push on its next stream id, without the M flag, and rsocket-java
   * takes it as a push. Sluice does as rsocket-java, on both sides, answering nothing; the id
   * does not become a stream.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 43 (departure): METADATA_PUSH with a non-zero stream id is taken as a push, as rsocket-java does")
  void metadataPushOnAStreamIsTakenAsAPush(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    Recorder clientResponder = new Recorder();
    ClientSide client = sluiceClient(wire, options().build(), clientResponder);
    peer.send(FrameBuilder.metadataPush("rust").streamId(1).clearFlags(M));
    client.peer.send(FrameBuilder.metadataPush("to the client").streamId(2).clearFlags(M));
    Recorder.Call push = responder.take();
    assertThat(push.kind()).isEqualTo("metadata-push");
    assertThat(push.metadata()).isEqualTo("rust");
    Recorder.Call toClient = clientResponder.take();
    assertThat(toClient.kind()).isEqualTo("metadata-push");
    assertThat(toClient.metadata()).isEqualTo("to the client");
    peer.assertQuiet();
    client.peer.assertQuiet();
    // On an id of the receiver's own parity (one the sender could never open) it is ignored, as
    // the rule says and as rsocket-java's responder does.
    peer.send(FrameBuilder.metadataPush("wrong parity").streamId(2).clearFlags(M));
    peer.send(FrameBuilder.requestResponse(3).data("still up"));
    assertThat(responder.take().data()).isEqualTo("still up");
    assertThat(client.requester().isOpen()).isTrue();
  }

  /** Sends {@code frames} to a Sluice server and to a Sluice client; neither answers or notices. */
  private void assertIgnoredByBothSides(Wire wire, FrameBuilder.Builder<?>... frames) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    Recorder clientResponder = new Recorder();
    ClientSide client = sluiceClient(wire, options().build(), clientResponder);
    for (FrameBuilder.Builder<?> f : frames) {
      peer.send(f);
      client.peer.send(f);
    }
    peer.assertQuiet();
    client.peer.assertQuiet();
    assertThat(responder.pending()).isEmpty();
    assertThat(clientResponder.pending()).isEmpty();
    peer.send(FrameBuilder.requestResponse(1).data("still up"));
    assertThat(responder.take().data()).isEqualTo("still up");
    assertThat(client.requester().isOpen()).isTrue();
  }
}
