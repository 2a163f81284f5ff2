package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.exceptions.RejectedSetupException;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Connection set-up: rules 9-14, 44, 45 and 47 of docs/conformance.md. */
class SetupRulesTest extends ConformanceTestBase {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 9: a first frame that is not SETUP or RESUME on stream 0 gets ERROR[INVALID_SETUP], then close")
  void firstFrameMustBeSetupOrResume(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = rawClient(wire, options().build(), responder);
    peer.send(FrameBuilder.requestResponse(1).data("too early"));
    peer.assertConnectionErrorAndClose(INVALID_SETUP);

    RawPeer onAStream = rawClient(wire, options().build(), responder);
    onAStream.send(FrameBuilder.setup().streamId(1));
    onAStream.assertConnectionErrorAndClose(INVALID_SETUP);
    assertThat(responder.pending()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 10: SETUP keepalive interval and max lifetime must be > 0")
  void setupKeepAliveAndLifetimeMustBePositive(Wire wire) {
    RawPeer zeroInterval = rawClient(wire, options().build(), new Recorder());
    zeroInterval.send(FrameBuilder.setup().keepAlive(0));
    zeroInterval.assertConnectionErrorAndClose(INVALID_SETUP);

    RawPeer zeroLifetime = rawClient(wire, options().build(), new Recorder());
    zeroLifetime.send(FrameBuilder.setup().lifetime(0));
    zeroLifetime.assertConnectionErrorAndClose(INVALID_SETUP);

    ClientSide client = sluiceClient(wire);
    assertThat(client.setup.setupKeepAlive()).isPositive();
    assertThat(client.setup.setupLifetime()).isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 11: a resume token is present if and only if SETUP has the R flag")
  void resumeTokenPresentIffResumeFlag(Wire wire) {
    ClientSide client = sluiceClient(wire);
    WireFrame setup = client.setup;
    assertThat(setup.has(SETUP_R)).as("Sluice never asks for resumption").isFalse();
    // Without R the MIME types follow the lifetime directly: no token length field in between.
    assertThat(setup.u8(HEADER + 12)).isEqualTo("application/binary".length());
    assertThat(setup.setupMetadataMime()).isEqualTo("application/binary");
    assertThat(setup.setupMajor()).isEqualTo(1);
    assertThat(setup.setupMinor()).isEqualTo(0);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 12: SETUP with R but no resume support gets ERROR[REJECTED_SETUP]")
  void setupWithResumeFlagIsRejectedWithoutResumeSupport(Wire wire) {
    RawPeer peer = rawClient(wire, options().build(), new Recorder());
    peer.send(FrameBuilder.setup().resumeToken(new byte[] {1, 2, 3, 4}));
    peer.assertConnectionErrorAndClose(REJECTED_SETUP);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 13: a rejected SETUP gets a setup-class ERROR on stream 0, then the connection closes")
  void rejectedSetupGetsSetupErrorOnStreamZeroThenClose(Wire wire) {
    RawPeer refused =
        rawClient(
            wire,
            options().build(),
            (setup, requester) -> {
              throw new RejectedSetupException("not you");
            });
    refused.send(FrameBuilder.setup());
    WireFrame error = refused.assertConnectionErrorAndClose(REJECTED_SETUP);
    assertThat(error.errorText()).isEqualTo("not you");

    RawPeer wrongVersion = rawClient(wire, options().build(), new Recorder());
    wrongVersion.send(FrameBuilder.setup().version(2, 0));
    wrongVersion.assertConnectionErrorAndClose(UNSUPPORTED_SETUP);

    // A SETUP that cannot be parsed is an invalid SETUP, not a generic connection error.
    RawPeer brokenMime = rawClient(wire, options().build(), new Recorder());
    brokenMime.send(FrameBuilder.setup().declaredMetadataMimeLength(200));
    brokenMime.assertConnectionErrorAndClose(INVALID_SETUP);

    RawPeer cutShort = rawClient(wire, options().build(), new Recorder());
    cutShort.send(FrameBuilder.setup().truncate(12));
    cutShort.assertConnectionErrorAndClose(INVALID_SETUP);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 14: no requests and no responder PAYLOAD before the connection is established")
  void noRequestsBeforeEstablishment(Wire wire) {
    // Server: an acceptor that starts a request and then refuses: the request never goes out.
    RawPeer peer =
        rawClient(
            wire,
            options().build(),
            (setup, requester) -> {
              requester.requestResponse(utf8("from a refusing acceptor"), new Events());
              throw new RejectedSetupException("refused");
            });
    peer.send(FrameBuilder.setup());
    peer.assertConnectionErrorAndClose(REJECTED_SETUP);
    assertThat(peer.all()).extracting(WireFrame::type).containsExactly(ERROR);

    // Client: a request made the moment the connection is handed out follows the SETUP.
    ClientSide client = sluiceClient(wire);
    client.requester().requestResponse(utf8("hello"), new Events());
    WireFrame request = client.peer.next(REQUEST_RESPONSE);
    assertThat(request.dataUtf8()).isEqualTo("hello");
    assertThat(client.peer.all().get(0).type()).isEqualTo(SETUP);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 44: a server ignores a second SETUP; a client ignores any SETUP")
  void secondSetupIsIgnored(Wire wire) {
    AtomicInteger accepted = new AtomicInteger();
    Recorder responder = new Recorder();
    RawPeer peer =
        rawClient(
            wire,
            options().build(),
            (setup, requester) -> {
              accepted.incrementAndGet();
              return responder;
            });
    peer.send(FrameBuilder.setup());
    peer.send(FrameBuilder.setup().data("again"));
    peer.assertQuiet();
    assertThat(accepted).hasValue(1);
    peer.send(FrameBuilder.requestResponse(1).data("still up"));
    Recorder.Call call = responder.take();
    assertThat(call.data()).isEqualTo("still up");

    ClientSide client = sluiceClient(wire);
    client.peer.send(FrameBuilder.setup());
    client.peer.assertQuiet();
    assertThat(client.requester().isOpen()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 45 (server half): a server ignores setup- and resume-class ERRORs after establishment")
  void serverIgnoresSetupClassErrors(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = established(wire, responder);
    for (int code : new int[] {INVALID_SETUP, UNSUPPORTED_SETUP, REJECTED_SETUP, REJECTED_RESUME}) {
      peer.send(FrameBuilder.error(0, code, "late setup error"));
    }
    peer.assertQuiet();
    peer.send(FrameBuilder.requestResponse(1).data("still up"));
    assertThat(responder.take().data()).isEqualTo("still up");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 47: without resume support, RESUME gets ERROR[REJECTED_RESUME]")
  void resumeIsRejectedWithoutResumeSupport(Wire wire) {
    RawPeer first = rawClient(wire, options().build(), new Recorder());
    first.send(FrameBuilder.resume(new byte[] {9, 9}, 0, 0));
    first.assertConnectionErrorAndClose(REJECTED_RESUME);

    RawPeer later = established(wire, new Recorder());
    later.send(FrameBuilder.resume(new byte[] {9, 9}, 0, 0));
    later.assertConnectionErrorAndClose(REJECTED_RESUME);
  }
}
