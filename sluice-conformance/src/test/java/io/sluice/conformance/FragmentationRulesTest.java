package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Fragmentation: rules 33-35 of docs/conformance.md. */
class FragmentationRulesTest extends ConformanceTestBase {

  private static final int MTU = 64;
  private static final String METADATA = "m".repeat(150);
  private static final String DATA = "d".repeat(200);

  /** Reads the fragments of one message and checks rule 34 on them. */
  private static List<WireFrame> readFragments(RawPeer peer, int firstType) {
    List<WireFrame> frames = new ArrayList<>();
    for (; ; ) {
      WireFrame f = peer.nextSkippingKeepAlives();
      frames.add(f);
      if (!f.has(F) || f.has(C)) {
        break;
      }
    }
    assertThat(frames.size()).as("fragments at an MTU of %s", MTU).isGreaterThan(2);
    assertThat(frames.get(0).type()).as("the first fragment keeps the original type").isEqualTo(firstType);
    assertThat(frames.subList(1, frames.size()))
        .as("continuations are PAYLOAD")
        .allMatch(f -> f.type() == PAYLOAD);
    assertThat(frames.subList(0, frames.size() - 1)).as("F on all but the last").allMatch(f -> f.has(F));
    assertThat(frames.get(frames.size() - 1).has(F)).as("the last fragment has F=0").isFalse();
    assertThat(frames).allMatch(f -> f.size() + 3 <= MTU);
    boolean dataSeen = false;
    for (WireFrame f : frames) {
      if (f.has(M)) {
        assertThat(dataSeen).as("metadata after data in %s", f).isFalse();
      }
      dataSeen |= f.data().length > 0;
    }
    return frames;
  }

  private static String joined(List<WireFrame> frames, boolean metadata) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (WireFrame f : frames) {
      byte[] part = metadata ? f.metadata() : f.data();
      if (part != null) {
        out.writeBytes(part);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 33: F together with C means F is ignored (not a fragment)")
  void followsWithCompleteIsIgnored(Wire wire) {
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    client.requester().requestStream(utf8("s"), 5, events);
    WireFrame open = client.peer.next(REQUEST_STREAM);
    client.peer.send(FrameBuilder.payload(open.streamId(), true, true).follows(true).data("whole"));
    assertThat(events.takeSignal()).isEqualTo("next:whole");
    assertThat(events.takeSignal()).isEqualTo("complete");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 34: fragments carry metadata before data, continuations are PAYLOAD, the last has F=0")
  void fragmentsMetadataFirstContinuationsArePayloadLastWithoutFollows(Wire wire) {
    // Sluice as responder fragments its answer.
    Recorder responder =
        new Recorder().onStart(c -> c.handle().nextAndComplete(utf8(METADATA, DATA)));
    RawPeer peer = rawClient(wire, options().mtu(MTU).build(), responder);
    peer.send(FrameBuilder.setup());
    peer.send(FrameBuilder.requestResponse(1).data("fragment your answer"));
    List<WireFrame> answer = readFragments(peer, PAYLOAD);
    assertThat(joined(answer, true)).isEqualTo(METADATA);
    assertThat(joined(answer, false)).isEqualTo(DATA);

    // Sluice as requester fragments its request; the initial N is only in the first frame.
    ClientSide client = sluiceClient(wire, options().mtu(MTU).build(), new Recorder());
    client.requester().requestStream(utf8(METADATA, DATA), 3, new Events());
    List<WireFrame> request = readFragments(client.peer, REQUEST_STREAM);
    assertThat(request.get(0).initialRequestN()).isEqualTo(3);
    assertThat(joined(request, true)).isEqualTo(METADATA);
    assertThat(joined(request, false)).isEqualTo(DATA);

    // Sluice reassembles what a peer fragments the same way.
    Recorder reassembling = new Recorder();
    RawPeer sender = established(wire, reassembling);
    sender.send(FrameBuilder.requestResponse(1).metadata("ab").follows(true));
    sender.send(FrameBuilder.payload(1).metadata("cd").data("12").follows(true));
    sender.send(FrameBuilder.payload(1).data("34"));
    Recorder.Call call = reassembling.take();
    assertThat(call.metadata()).isEqualTo("abcd");
    assertThat(call.data()).isEqualTo("1234");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 35: a fragmented message counts once for request-n and for the lease")
  void fragmentedMessageCountsOnceForRequestNAndLease(Wire wire) {
    // request-n, Sluice sending: 2 credits = 2 whole messages, however many frames they take.
    Recorder responder = new Recorder();
    RawPeer peer = rawClient(wire, options().mtu(MTU).build(), responder);
    peer.send(FrameBuilder.setup());
    peer.send(FrameBuilder.requestStream(1, 2).data("two big ones"));
    Recorder.Call call = responder.take();
    assertThat(call.events().take()).isEqualTo("request:2");
    call.handle().next(utf8(METADATA, DATA));
    call.handle().next(utf8(METADATA, DATA));
    for (int i = 0; i < 2; i++) {
      List<WireFrame> message = readFragments(peer, PAYLOAD);
      assertThat(joined(message, false)).isEqualTo(DATA);
    }
    peer.assertQuiet();

    // request-n, Sluice receiving: a stream that granted 2 accepts 2 fragmented messages.
    ClientSide client = sluiceClient(wire);
    Events events = new Events();
    client.requester().requestStream(utf8("s"), 2, events);
    int id = client.peer.next(REQUEST_STREAM).streamId();
    for (int i = 0; i < 2; i++) {
      client.peer.send(FrameBuilder.payload(id).next(true).metadata("m" + i).follows(true));
      client.peer.send(FrameBuilder.payload(id).next(true).data("part-").follows(true));
      client.peer.send(FrameBuilder.payload(id).next(true).data("end" + i));
    }
    assertThat(events.takeSignal()).isEqualTo("next:m0|part-end0");
    assertThat(events.takeSignal()).isEqualTo("next:m1|part-end1");
    client.peer.assertQuiet();
    assertThat(events.drain()).isEmpty();

    // Lease, Sluice granting 2: a request in 3 fragments and a whole one use it up, no more.
    Recorder leased = new Recorder();
    RawPeer lessee = rawClient(wire, options().lease(true).leaseGrant(30_000, 2).build(), leased);
    lessee.send(FrameBuilder.setup().lease(true));
    lessee.next(LEASE);
    lessee.send(FrameBuilder.requestResponse(1).metadata("a").follows(true));
    lessee.send(FrameBuilder.payload(1).data("b").follows(true));
    lessee.send(FrameBuilder.payload(1).data("c"));
    lessee.send(FrameBuilder.requestResponse(3).data("whole"));
    lessee.send(FrameBuilder.requestResponse(5).data("one too many"));
    WireFrame rejected = lessee.next(ERROR);
    assertThat(rejected.streamId()).isEqualTo(5);
    assertThat(rejected.errorCode()).isEqualTo(REJECTED);
    assertThat(List.of(leased.take().data(), leased.take().data())).containsExactlyInAnyOrder("bc", "whole");

    // Lease, Sluice requesting under a LEASE of 1: one fragmented request goes out whole.
    ClientSide leasedClient =
        sluiceClient(wire, options().mtu(MTU).lease(true).build(), new Recorder());
    leasedClient.peer.next(LEASE);
    leasedClient.peer.send(FrameBuilder.lease(60_000, 1));
    Requester requester = leasedClient.requester();
    requester.requestResponse(utf8(METADATA, DATA), new Events());
    List<WireFrame> fragments = readFragments(leasedClient.peer, REQUEST_RESPONSE);
    assertThat(joined(fragments, false)).isEqualTo(DATA);
    Events second = new Events();
    requester.requestResponse(utf8("second"), second);
    assertThat(second.take()).startsWith("error:0x202:");
  }
}
