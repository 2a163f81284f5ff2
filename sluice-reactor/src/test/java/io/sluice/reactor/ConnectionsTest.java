package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.SetupInfo;
import io.sluice.core.ClientSetup;
import io.sluice.test.ClosedPort;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.test.StepVerifier;

/** Connection set-up and the independence of connections on one server. */
class ConnectionsTest {

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void setupMimeTypesAndPayloadReachTheAcceptor(TestTransport t) throws Exception {
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    try (Harness h =
        Harness.builder(t)
            .acceptor(
                (SetupInfo s, ReactorRequester r) -> {
                  seen.add(
                      s.metadataMimeType()
                          + " "
                          + s.dataMimeType()
                          + " "
                          + s.payload().metadataUtf8()
                          + " "
                          + s.payload().dataUtf8()
                          + " lease="
                          + s.leaseRequested());
                  return new EchoResponder("server");
                })
            .noClient()
            .start()) {
      Message payload = msg("setup-md", "setup-data");
      ReactorRequester client =
          SluiceClient.builder(h.clientTransport())
              .setup(ClientSetup.of("text/plain", "application/json", payload))
              .connect()
              .block(TIMEOUT);
      assertThat(seen.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo("text/plain application/json setup-md setup-data lease=false");
      assertThat(payload.refCnt()).isZero();
      assertThat(text(client.requestResponse(msg("x")).block(TIMEOUT))).isEqualTo("server:x");
      client.dispose();
      client.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void failedConnectReleasesTheSetupPayload(TestTransport t) throws Exception {
    try (ClosedPort closed = ClosedPort.any()) {
      ClientTransport nowhere =
          t == TestTransport.TCP
              ? TcpClientTransport.create("127.0.0.1", closed.port())
              : LocalTransport.client("nobody-listens-here");
      Message payload = msg("md", "data");
      StepVerifier.create(
              SluiceClient.builder(nowhere)
                  .setup(ClientSetup.of("a/b", "c/d", payload))
                  .connect())
          .expectError()
          .verify(TIMEOUT);
      assertThat(payload.refCnt()).isZero();
    }
  }

  /**
   * A client responder function that returns null is refused when the connection starts, with a
   * clear error, instead of failing every request of the server with a swallowed exception.
   */
  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void aClientResponderFunctionReturningNullFailsTheConnect(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start()) {
      Message payload = msg("md", "data");
      StepVerifier.create(
              SluiceClient.builder(h.clientTransport())
                  .setup(ClientSetup.of("a/b", "c/d", payload))
                  .responder(r -> null)
                  .connect())
          .expectErrorSatisfies(
              e -> assertThat(e).hasMessageContaining("responder function returned null"))
          .verify(TIMEOUT);
      assertThat(payload.refCnt()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void aBrokenPeerDoesNotDisturbOtherConnections(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start();
        RawPeer bad = h.raw()) {
      ReactorRequester other = h.connect();
      bad.send(FrameBuilder.setup());
      bad.send(FrameBuilder.requestResponse(2).data("wrong parity"));
      WireFrame e = bad.next(WireFrame.ERROR);
      assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
      bad.assertClosed();
      assertThat(text(h.client.requestResponse(msg("a")).block(TIMEOUT))).isEqualTo("server:a");
      assertThat(text(other.requestResponse(msg("b")).block(TIMEOUT))).isEqualTo("server:b");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void closingTheListenerKeepsLiveConnections(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      h.bound.close();
      h.bound.onClose().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      // Over TCP the live connection keeps the port bound on the server's side, so the connect
      // below cannot be given it as its own port (no TCP self-connect) and is refused.
      assertThat(text(h.client.requestResponse(msg("still")).block(TIMEOUT))).isEqualTo("server:still");
      StepVerifier.create(reactor.core.publisher.Mono.defer(() -> reactor.core.publisher.Mono.fromCallable(h::connect)))
          .expectError()
          .verify(TIMEOUT);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void eachSideSeesTheOtherClose(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      ReactorRequester server = h.serverRequester();
      assertThat(server.isOpen()).isTrue();
      h.client.dispose();
      server.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(TIMEOUT);
      assertThat(server.isOpen()).isFalse();
      StepVerifier.create(server.requestResponse(msg("gone"))).expectError().verify(TIMEOUT);
    }
  }

  @org.junit.jupiter.api.Test
  void aSubscriberThatOverReleasesHurtsNoOtherLocalConnection() {
    // An application bug: every message released twice. Over the local transport the frame buffer
    // is then released once too often when the transport lets go of it; that must not kill the
    // executor that every local connection of the JVM shares.
    try (Harness h = Harness.builder(TestTransport.LOCAL).responder(new EchoResponder("server")).start()) {
      ReactorRequester other = h.connect();
      h.client
          .requestStream(msg("3:x"))
          .doOnNext(
              m -> {
                m.release();
                m.release();
              })
          .onErrorResume(e -> reactor.core.publisher.Flux.empty())
          .blockLast(TIMEOUT);
      assertThat(text(other.requestResponse(msg("fine")).block(TIMEOUT))).isEqualTo("server:fine");
      try (Harness second = Harness.builder(TestTransport.LOCAL).responder(new EchoResponder("s2")).start()) {
        assertThat(text(second.client.requestResponse(msg("ok")).block(TIMEOUT))).isEqualTo("s2:ok");
      }
    }
  }
}
