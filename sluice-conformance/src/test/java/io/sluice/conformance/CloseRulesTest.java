package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Graceful close: rule 38 of docs/conformance.md. */
class CloseRulesTest extends ConformanceTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 38: CONNECTION_CLOSE lets outstanding streams drain before the connection closes")
  void connectionCloseDrainsOutstandingStreams(Wire wire) {
    // The peer closes: Sluice finishes the live stream, rejects new ones, then closes.
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestStream(1, 1).data("live"));
    Recorder.Call live = responder.take();
    assertThat(live.events().take()).isEqualTo("request:1");
    live.handle().next(utf8("before close"));
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("before close");
    peer.send(FrameBuilder.error(0, CONNECTION_CLOSE, "bye"));
    peer.send(FrameBuilder.requestResponse(3).data("too late"));
    WireFrame rejected = peer.next(ERROR);
    assertThat(rejected.streamId()).isEqualTo(3);
    assertThat(rejected.errorCode()).isEqualTo(REJECTED);
    peer.send(FrameBuilder.requestN(1, 1));
    assertThat(live.events().take()).isEqualTo("request:1");
    live.handle().next(utf8("after close"));
    live.handle().complete();
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("after close");
    assertThat(peer.next(PAYLOAD).has(C)).isTrue();
    peer.assertClosed();

    // Sluice closes: ERROR[CONNECTION_CLOSE] first, the live stream still completes, then close.
    ClientSide client = sluiceClient(wire);
    Requester requester = client.requester();
    Events events = new Events();
    requester.requestStream(utf8("s"), 2, events);
    int id = client.peer.next(REQUEST_STREAM).streamId();
    requester.close();
    WireFrame close = client.peer.next(ERROR);
    assertThat(close.streamId()).isZero();
    assertThat(close.errorCode()).isEqualTo(CONNECTION_CLOSE);
    client.peer.send(FrameBuilder.payload(id, true, false).data("one"));
    client.peer.send(FrameBuilder.payload(id, true, true).data("two"));
    assertThat(events.takeSignal()).isEqualTo("next:one");
    assertThat(events.takeSignal()).isEqualTo("next:two");
    assertThat(events.takeSignal()).isEqualTo("complete");
    client.peer.assertClosed();
  }
}
