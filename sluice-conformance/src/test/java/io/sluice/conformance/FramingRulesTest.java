package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Frame layout and framing: rules 1-8 and 51 of docs/conformance.md. */
class FramingRulesTest extends ConformanceTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 1: on TCP the u24 length prefix equals the frame size; message transports carry no prefix")
  void lengthPrefixEqualsFrameSize(Wire wire) {
    RawPeer peer = established(wire, new Recorder());
    byte[] a = FrameBuilder.keepAlive(true, 0, "first".getBytes(StandardCharsets.US_ASCII)).toBytes();
    byte[] b = FrameBuilder.keepAlive(true, 0, "second!".getBytes(StandardCharsets.US_ASCII)).toBytes();
    if (peer instanceof RawPeer.Tcp tcp) {
      // Two prefixed frames in one write, the second split from its prefix mid-way.
      ByteArrayOutputStream both = new ByteArrayOutputStream();
      both.writeBytes(FrameBuilder.lengthPrefixed(a));
      both.writeBytes(FrameBuilder.lengthPrefixed(b));
      byte[] bytes = both.toByteArray();
      int cut = FrameBuilder.lengthPrefixed(a).length + 2;
      tcp.sendRaw(java.util.Arrays.copyOfRange(bytes, 0, cut));
      tcp.sendRaw(java.util.Arrays.copyOfRange(bytes, cut, bytes.length));
    } else {
      peer.sendBytes(a);
      peer.sendBytes(b);
    }
    // The reader took each frame's size from its prefix (TCP) or its buffer (local); the echoes
    // parse to exactly header + position + data, so the prefix matched the frame.
    WireFrame first = peer.next(KEEPALIVE);
    assertThat(first.size()).isEqualTo(HEADER + 8 + 5);
    assertThat(new String(first.keepAliveData(), StandardCharsets.US_ASCII)).isEqualTo("first");
    WireFrame second = peer.next(KEEPALIVE);
    assertThat(second.size()).isEqualTo(HEADER + 8 + 7);
    assertThat(new String(second.keepAliveData(), StandardCharsets.US_ASCII)).isEqualTo("second!");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 2: frames larger than 16,777,215 bytes are never sent; oversized inbound frames are refused")
  void framesLargerThanTheMaximumAreNeverSentAndRefused(Wire wire) {
    // Send side: a response above the u24 maximum, with fragmentation otherwise off (mtu 0).
    int size = 0xFFFFFF + 1000;
    Recorder responder =
        new Recorder()
            .onStart(
                c -> {
                  ByteBuf data = c.handle().alloc().buffer(size);
                  data.writeZero(size);
                  c.handle().nextAndComplete(Message.of(data));
                });
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).data("big"));
    long total = 0;
    int frames = 0;
    for (; ; ) {
      WireFrame f = peer.next(PAYLOAD);
      frames++;
      assertThat(f.size()).isLessThanOrEqualTo(0xFFFFFF);
      total += f.data().length;
      if (!f.has(F)) {
        break;
      }
    }
    assertThat(frames).isGreaterThan(1);
    assertThat(total).isEqualTo(size);

    // Receive side: a frame above the configured maximum is a connection error.
    RawPeer small = rawClient(wire, options().maxFrameSize(1024).build(), new Recorder());
    small.send(FrameBuilder.setup());
    small.send(FrameBuilder.requestResponse(1).data(new byte[2048]));
    small.assertConnectionErrorAndClose(CONNECTION_ERROR);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 3: the stream id's top bit is sent as 0 and ignored on receive")
  void streamIdTopBitIsZeroOnSendAndIgnoredOnReceive(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).streamIdRaw(0x80000001).data("top bit"));
    Recorder.Call call = responder.take();
    assertThat(call.data()).isEqualTo("top bit");
    call.handle().nextAndComplete(utf8("answer"));
    WireFrame answer = peer.next(PAYLOAD);
    assertThat(answer.rawStreamId()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 4: SETUP, LEASE, KEEPALIVE, METADATA_PUSH, RESUME and RESUME_OK only on stream 0")
  void connectionFramesOnlyOnStreamZero(Wire wire) {
    List<FrameBuilder.Builder<?>> onAStream =
        List.of(
            FrameBuilder.setup().streamId(1),
            FrameBuilder.lease(1000, 10).streamId(1),
            FrameBuilder.keepAlive(true, 0).streamId(1),
            FrameBuilder.resume(new byte[] {1}, 0, 0).streamId(1),
            FrameBuilder.resumeOk(0).streamId(1));
    for (FrameBuilder.Builder<?> frame : onAStream) {
      RawPeer peer = established(wire, new Recorder());
      peer.send(frame);
      peer.assertConnectionErrorAndClose(CONNECTION_ERROR);
    }
    // METADATA_PUSH on a stream is taken as a push instead, as rsocket-java does (rule 43).
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.metadataPush("on a stream").streamId(1));
    assertThat(responder.take().metadata()).isEqualTo("on a stream");
    peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 5: flag bits a frame type does not define are sent as 0 and ignored on receive")
  void undefinedFlagBitsAreIgnored(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).data("rr").addFlags(C | N));
    peer.send(FrameBuilder.requestStream(3, 1).data("rs").addFlags(C | N));
    Recorder.Call rr = responder.take();
    Recorder.Call rs = responder.take();
    assertThat(rr.data()).isEqualTo("rr");
    assertThat(rs.data()).isEqualTo("rs");
    assertThat(rs.events().take()).isEqualTo("request:1");
    peer.send(FrameBuilder.requestN(3, 2).flags(M | F | C | N));
    assertThat(rs.events().take()).isEqualTo("request:2");
    rr.handle().nextAndComplete(utf8("done"));
    assertThat(peer.next(PAYLOAD).dataUtf8()).isEqualTo("done");
    // Every frame Sluice sent here passed SendRules' defined-flags check.
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 6: a metadata length inconsistent with the frame size gets ERROR[CONNECTION_ERROR], then close")
  void metadataLengthInconsistentWithFrameIsAConnectionError(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.requestResponse(1).metadata("abc").data("d").declaredMetadataLength(100));
    peer.assertConnectionErrorAndClose(CONNECTION_ERROR);
    assertThat(responder.pending()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 7: a frame of unknown type with the I flag is ignored")
  void unknownTypeWithIgnoreFlagIsIgnored(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.raw(0, 0x30, I, (byte) 1, (byte) 2));
    peer.send(FrameBuilder.raw(1, 0x31, I | M, (byte) 0, (byte) 0, (byte) 0));
    peer.send(FrameBuilder.raw(0, 0x00, I));
    peer.assertQuiet();
    peer.send(FrameBuilder.requestResponse(1).data("after"));
    assertThat(responder.take().data()).isEqualTo("after");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 7: a frame of unknown type without the I flag may be a CONNECTION_ERROR (Sluice: it is)")
  void unknownTypeWithoutIgnoreFlagIsAConnectionError(Wire wire) {
    RawPeer peer = established(wire, new Recorder());
    peer.send(FrameBuilder.raw(0, 0x30, 0, (byte) 1, (byte) 2));
    peer.assertConnectionErrorAndClose(CONNECTION_ERROR);
  }

  /**
   * The spec sets the M flag on every METADATA_PUSH, but a widely used client leaves it off, and
   * rsocket-java reads the frame's content as metadata either way: so does Sluice, on both sides,
   * while it always sets the flag itself (Rule 8 below).
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("METADATA_PUSH without the M flag: its content is still the metadata (as rsocket-java)")
  void metadataPushWithoutTheMetadataFlagStillCarriesMetadata(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.metadataPush("flagged"));
    peer.send(FrameBuilder.metadataPush("unflagged").clearFlags(M));
    Recorder.Call flagged = responder.take();
    assertThat(flagged.kind()).isEqualTo("metadata-push");
    assertThat(flagged.metadata()).isEqualTo("flagged");
    Recorder.Call unflagged = responder.take();
    assertThat(unflagged.kind()).isEqualTo("metadata-push");
    assertThat(unflagged.metadata()).isEqualTo("unflagged");

    Recorder clientResponder = new Recorder();
    ClientSide client = sluiceClient(wire, options().build(), clientResponder);
    client.peer.send(FrameBuilder.metadataPush("to the client").clearFlags(M));
    Recorder.Call toClient = clientResponder.take();
    assertThat(toClient.kind()).isEqualTo("metadata-push");
    assertThat(toClient.metadata()).isEqualTo("to the client");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 8: LEASE and METADATA_PUSH carry metadata without a metadata length field")
  void leaseAndMetadataPushHaveNoMetadataLength(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.metadataPush("pushed"));
    Recorder.Call push = responder.take();
    assertThat(push.kind()).isEqualTo("metadata-push");
    assertThat(push.metadata()).isEqualTo("pushed");

    ClientSide client = sluiceClient(wire);
    client.requester().metadataPush(utf8("md", ""), new Events());
    WireFrame sent = client.peer.next(METADATA_PUSH);
    assertThat(sent.has(M)).isTrue();
    assertThat(sent.size()).isEqualTo(HEADER + 2);
    assertThat(new String(sent.metadata(), StandardCharsets.UTF_8)).isEqualTo("md");

    RawPeer leased = rawClient(wire, options().lease(true).leaseGrant(5_000, 7).build(), new Recorder());
    leased.send(FrameBuilder.setup().lease(true));
    WireFrame lease = leased.next(LEASE);
    assertThat(lease.size()).isEqualTo(HEADER + 8);
    assertThat(lease.has(M)).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 51: EXT frames are ignored on receive (Sluice never sends EXT)")
  void extFramesAreIgnored(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    peer.send(FrameBuilder.ext(0, 7).ignore(true).data("x"));
    peer.send(FrameBuilder.ext(0, 7).data("x"));
    peer.send(FrameBuilder.ext(5, 1).ignore(true).data("x"));
    peer.assertQuiet();
    assertThat(responder.pending()).isEmpty();
  }
}
