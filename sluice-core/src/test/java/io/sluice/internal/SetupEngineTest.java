package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.SetupInfo;
import io.sluice.core.ClientSetup;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.InvalidSetupException;
import io.sluice.exceptions.RejectedResumeException;
import io.sluice.exceptions.RejectedSetupException;
import io.sluice.exceptions.SluiceException;
import io.sluice.exceptions.UnsupportedSetupException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Connection establishment: SETUP on the wire, and every way a server refuses one. */
class SetupEngineTest extends EngineTestBase {

  /** Checks that the engine answered with exactly one ERROR of {@code code} on stream 0 and closed. */
  private void assertRefused(int code, Class<? extends SluiceException> localType) {
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(ErrorCode.name(error.errorCode())).isEqualTo(ErrorCode.name(code));
    transport.awaitClosed();
    Throwable cause = Loop.awaitOutcome(conn.onClose());
    assertThat(cause).isInstanceOf(localType);
    assertThat(((SluiceException) cause).errorCode()).isEqualTo(code);
    transport.assertNothingSent();
  }

  @Test
  void clientSendsSetupAsItsFirstFrame() {
    Wire.Sent setup =
        client(opts().keepAlive(Duration.ofMillis(1234), Duration.ofMillis(5678)).build());
    assertThat(setup.streamId()).isZero();
    assertThat(setup.major()).isEqualTo(1);
    assertThat(setup.minor()).isEqualTo(0);
    assertThat(setup.keepAlive()).isEqualTo(1234);
    assertThat(setup.lifetime()).isEqualTo(5678);
    assertThat(setup.has(Frames.FLAG_SETUP_RESUME)).isFalse();
    assertThat(setup.has(Frames.FLAG_SETUP_LEASE)).isFalse();
    assertThat(setup.metadataMime()).isEqualTo(ClientSetup.DEFAULT_MIME_TYPE);
    assertThat(setup.dataMime()).isEqualTo(ClientSetup.DEFAULT_MIME_TYPE);
    assertThat(setup.metadata()).isNull();
    assertThat(setup.data()).isEmpty();
    transport.assertNothingSent();
  }

  @Test
  void clientSetupCarriesMimeTypesAndPayloadAndReleasesIt() {
    transport = new FakeTransport(loop, Framing.LENGTH_PREFIXED);
    Message payload = Message.utf8(transport.alloc, "setup-md", "setup-data");
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.client(
                    transport,
                    opts().build(),
                    ClientSetup.of("text/plain", "application/json", payload),
                    r -> new Responder() {}));
    Wire.Sent setup = transport.next(FrameType.SETUP);
    assertThat(setup.metadataMime()).isEqualTo("text/plain");
    assertThat(setup.dataMime()).isEqualTo("application/json");
    assertThat(setup.has(Frames.FLAG_METADATA)).isTrue();
    assertThat(setup.metadataUtf8()).isEqualTo("setup-md");
    assertThat(setup.dataUtf8()).isEqualTo("setup-data");
    assertThat(payload.refCnt()).isZero();
  }

  @Test
  void acceptorSeesTheSetupAndTheServerStaysQuiet() {
    AtomicReference<String> seen = new AtomicReference<>();
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (SetupInfo s, io.sluice.Requester r) -> {
                      seen.set(
                          s.majorVersion()
                              + "."
                              + s.minorVersion()
                              + " "
                              + s.keepAliveIntervalMillis()
                              + "/"
                              + s.keepAliveMaxLifetimeMillis()
                              + " "
                              + s.metadataMimeType()
                              + " "
                              + s.dataMimeType()
                              + " lease="
                              + s.leaseRequested()
                              + " "
                              + s.payload().metadataUtf8()
                              + " "
                              + s.payload().dataUtf8());
                      return new Responder() {};
                    }));
    ByteBuf setup = Wire.ALLOC.buffer();
    ByteBuf md = Wire.utf8("m");
    ByteBuf data = Wire.utf8("d");
    io.sluice.internal.frame.Setup.write(setup, false, 100, 1000, null, "a/b", "c/d", md, data);
    md.release();
    data.release();
    transport.inject(setup);
    assertThat(seen.get()).isEqualTo("1.0 100/1000 a/b c/d lease=false m d");
    transport.assertNothingSent(); // the server sends no keepalives of its own
    assertThat(conn.isOpen()).isTrue();
  }

  static Stream<Arguments> notSetupFirst() {
    return Stream.<Arguments>of(
        Arguments.of("REQUEST_RESPONSE", (Supplier<ByteBuf>) () -> Wire.requestResponse(1, null, "x")),
        Arguments.of("KEEPALIVE", (Supplier<ByteBuf>) () -> Wire.keepAlive(true, 0, null)),
        Arguments.of("METADATA_PUSH", (Supplier<ByteBuf>) () -> Wire.metadataPush(0, "md")),
        Arguments.of("REQUEST_N", (Supplier<ByteBuf>) () -> Wire.requestN(1, 5)),
        Arguments.of("ERROR", (Supplier<ByteBuf>) () -> Wire.error(0, ErrorCode.CONNECTION_ERROR, "x")),
        Arguments.of("SETUP on stream 1", (Supplier<ByteBuf>) () -> {
          ByteBuf f = Wire.setup();
          f.setInt(f.readerIndex(), 1);
          return f;
        }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notSetupFirst")
  void firstFrameNotSetupIsInvalidSetup(String name, Supplier<ByteBuf> first) {
    AtomicInteger accepted = new AtomicInteger();
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (s, r) -> {
                      accepted.incrementAndGet();
                      return new Responder() {};
                    }));
    // A valid SETUP right behind it in the same read must not be looked at: nothing is buffered.
    transport.inject(first.get(), Wire.setup());
    assertRefused(ErrorCode.INVALID_SETUP, InvalidSetupException.class);
    assertThat(accepted).hasValue(0);
  }

  @Test
  void unsupportedMajorVersion() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.setup(2, 0, 0, 1000, 5000, null));
    assertRefused(ErrorCode.UNSUPPORTED_SETUP, UnsupportedSetupException.class);
  }

  @Test
  void resumeFlagIsRejectedSetup() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.setup(1, 0, Frames.FLAG_SETUP_RESUME, 1000, 5000, new byte[] {1, 2, 3}));
    assertRefused(ErrorCode.REJECTED_SETUP, RejectedSetupException.class);
  }

  @Test
  void resumeIsRejectedResume() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.resume(new byte[] {9, 9}));
    assertRefused(ErrorCode.REJECTED_RESUME, RejectedResumeException.class);
  }

  @Test
  void resumeAfterSetupIsRejectedResume() {
    acceptedServer(opts().build(), new Responder() {});
    transport.inject(Wire.resume(new byte[] {9, 9}));
    assertRefused(ErrorCode.REJECTED_RESUME, RejectedResumeException.class);
  }

  @Test
  void zeroKeepAliveIsInvalidSetup() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.setup(1, 0, 0, 0, 5000, null));
    assertRefused(ErrorCode.INVALID_SETUP, InvalidSetupException.class);
  }

  @Test
  void zeroLifetimeIsInvalidSetup() {
    server(opts().build(), new Responder() {});
    transport.inject(Wire.setup(1, 0, 0, 1000, 0, null));
    assertRefused(ErrorCode.INVALID_SETUP, InvalidSetupException.class);
  }

  @Test
  void truncatedSetupIsInvalidSetup() {
    server(opts().build(), new Responder() {});
    ByteBuf f = Wire.setup();
    f.writerIndex(f.readerIndex() + 12);
    transport.inject(f);
    assertRefused(ErrorCode.INVALID_SETUP, InvalidSetupException.class);
  }

  @Test
  void noSetupWithinTheTimeoutClosesWithInvalidSetup() {
    server(opts().setupTimeout(Duration.ofMillis(100)).build(), new Responder() {});
    // The engine sends ERROR[INVALID_SETUP] ("no SETUP within ... ms") on stream 0, then closes.
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(ErrorCode.name(error.errorCode())).isEqualTo("INVALID_SETUP");
    assertThat(error.errorMessage()).contains("no SETUP");
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose())).isInstanceOf(InvalidSetupException.class);
  }

  @Test
  void setupInTimeCancelsTheSetupTimeout() throws Exception {
    acceptedServer(opts().setupTimeout(Duration.ofMillis(50)).build(), new Responder() {});
    Thread.sleep(200); // well past the setup timeout: nothing may happen (not a timing assertion)
    transport.assertNothingSent();
    assertThat(transport.isClosed()).isFalse();
  }

  static Stream<Arguments> acceptorRefusals() {
    return Stream.of(
        Arguments.of(new RejectedSetupException("go away"), ErrorCode.REJECTED_SETUP, "go away"),
        Arguments.of(new UnsupportedSetupException("bad mime"), ErrorCode.UNSUPPORTED_SETUP, "bad mime"),
        Arguments.of(new InvalidSetupException("nonsense"), ErrorCode.INVALID_SETUP, "nonsense"),
        Arguments.of(new IllegalStateException("boom"), ErrorCode.REJECTED_SETUP, "boom"),
        Arguments.of(new ConnectionErrorException("not a setup code"), ErrorCode.REJECTED_SETUP, "not a setup code"),
        Arguments.of(null, ErrorCode.REJECTED_SETUP, "acceptor returned no responder"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("acceptorRefusals")
  void acceptorRefusal(RuntimeException thrown, int code, String message) {
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (s, r) -> {
                      if (thrown != null) {
                        throw thrown;
                      }
                      return null;
                    }));
    transport.inject(Wire.setup());
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(ErrorCode.name(error.errorCode())).isEqualTo(ErrorCode.name(code));
    assertThat(error.errorMessage()).isEqualTo(message);
    transport.awaitClosed();
  }

  @Test
  void secondSetupIsIgnored() {
    AtomicInteger accepted = new AtomicInteger();
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (s, r) -> {
                      accepted.incrementAndGet();
                      return new Responder() {};
                    }));
    transport.inject(Wire.setup());
    transport.inject(Wire.setup());
    transport.assertNothingSent();
    assertThat(accepted).hasValue(1);
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void clientClosesWhenTheServerRejectsItsSetup() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestResponse(msg("hi"), r));
    Wire.Sent request = transport.next(FrameType.REQUEST_RESPONSE);
    assertThat(request.streamId()).isEqualTo(1);
    transport.inject(Wire.error(0, ErrorCode.REJECTED_SETUP, "no thanks"));
    Ev e = r.take("error");
    assertThat(e.error()).isInstanceOf(RejectedSetupException.class).hasMessage("no thanks");
    transport.awaitClosed();
    assertThat(Loop.awaitOutcome(conn.onClose()))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessage("no thanks");
    assertThat(conn.isOpen()).isFalse();
  }

  @Test
  void clientIgnoresASetupFromTheServer() {
    client(opts().build());
    transport.inject(Wire.setup());
    transport.assertNothingSent();
    assertThat(conn.isOpen()).isTrue();
  }

  @Test
  void requestsFromTheClientResponderFactoryFollowTheSetup() {
    Recorder early = new Recorder();
    Wire.Sent setup =
        client(
            opts().build(),
            requester -> {
              requester.requestResponse(Message.utf8(requester.alloc(), "early"), early);
              return new Responder() {};
            });
    assertThat(setup.type()).isEqualTo(FrameType.SETUP); // first on the wire
    Wire.Sent request = transport.next(FrameType.REQUEST_RESPONSE);
    assertThat(request.streamId()).isEqualTo(1);
    assertThat(request.dataUtf8()).isEqualTo("early");
    transport.inject(Wire.payload(1, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "answer"));
    assertThat(early.take("next").data()).isEqualTo("answer");
  }

  @Test
  void requestsFromTheAcceptorStartOnceAccepted() {
    Recorder fromAcceptor = new Recorder();
    // Captured in the acceptor, asserted here: the engine turns whatever the acceptor throws
    // (an AssertionError too) into REJECTED_SETUP, which would hide the assertion's message.
    AtomicReference<List<Wire.Sent>> sentBeforeAcceptance = new AtomicReference<>();
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (s, requester) -> {
                      requester.requestStream(Message.utf8(requester.alloc(), "hello"), 3, fromAcceptor);
                      sentBeforeAcceptance.set(new ArrayList<>(transport.sent));
                      return new Responder() {};
                    }));
    transport.inject(Wire.setup());
    assertThat(sentBeforeAcceptance.get()).as("frames sent before the acceptor returned").isNotNull().isEmpty();
    Wire.Sent request = transport.next(FrameType.REQUEST_STREAM);
    assertThat(request.streamId()).isEqualTo(2);
    assertThat(request.requestN()).isEqualTo(3);
    assertThat(fromAcceptor.events).isEmpty();
  }

  @Test
  void requestsFromARefusingAcceptorFailAndAreNeverSent() {
    Recorder fromAcceptor = new Recorder();
    AtomicReference<Message> request = new AtomicReference<>();
    transport = new FakeTransport(loop, Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (s, requester) -> {
                      request.set(Message.utf8(requester.alloc(), "never"));
                      requester.requestResponse(request.get(), fromAcceptor);
                      throw new RejectedSetupException("no");
                    }));
    transport.inject(Wire.setup());
    Wire.Sent error = transport.next(FrameType.ERROR);
    assertThat(error.errorCode()).isEqualTo(ErrorCode.REJECTED_SETUP);
    assertThat(fromAcceptor.take("error").error()).isInstanceOf(SluiceException.class);
    transport.assertNothingSent();
    assertThat(request.get().refCnt()).isZero();
  }
}
