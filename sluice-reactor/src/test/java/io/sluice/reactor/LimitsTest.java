package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import io.sluice.transport.local.LocalRawPeer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Limits and setup rules enforced by a real server over each transport, checked with a raw peer
 * that writes frames by hand (so the transport's own framing and size checks are covered too).
 */
class LimitsTest {

  static void assertConnectionLevelError(RawPeer peer, int code) {
    WireFrame e = peer.nextSkippingKeepAlives();
    assertThat(e.type()).as("%s", e).isEqualTo(WireFrame.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(ErrorCode.name(e.errorCode())).isEqualTo(ErrorCode.name(code));
    peer.assertClosed();
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void noSetupWithinTheSetupTimeout(TestTransport t) {
    ConnectionOptions o = ConnectionOptions.builder().setupTimeout(Duration.ofMillis(100)).build();
    try (Harness h = Harness.builder(t).serverOptions(o).noClient().start();
        RawPeer peer = h.raw()) {
      assertConnectionLevelError(peer, ErrorCode.INVALID_SETUP);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void firstFrameNotSetup(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.requestResponse(1).data("hello?"));
      assertConnectionLevelError(peer, ErrorCode.INVALID_SETUP);
      assertThat(h.serverRequesters).as("never accepted").isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void unsupportedVersion(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup().version(2, 0).keepAlive(1000).lifetime(5000));
      assertConnectionLevelError(peer, ErrorCode.UNSUPPORTED_SETUP);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void resumeFlagInSetup(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(
          FrameBuilder.setup().keepAlive(1000).lifetime(5000).resumeToken(new byte[] {1, 2, 3, 4}));
      assertConnectionLevelError(peer, ErrorCode.REJECTED_SETUP);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void resume(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.resume(new byte[] {0, 0, 0, 42}, 0, 0));
      assertConnectionLevelError(peer, ErrorCode.REJECTED_RESUME);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void acceptorRejection(TestTransport t) {
    try (Harness h =
            Harness.builder(t)
                .acceptor(
                    (setup, requester) -> {
                      throw new io.sluice.exceptions.RejectedSetupException("not today");
                    })
                .noClient()
                .start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      WireFrame e = peer.next(WireFrame.ERROR);
      assertThat(e.errorCode()).isEqualTo(ErrorCode.REJECTED_SETUP);
      assertThat(e.errorText()).isEqualTo("not today");
      peer.assertClosed();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientSeesTheRejection(TestTransport t) {
    try (Harness h =
        Harness.builder(t)
            .acceptor(
                (setup, requester) -> {
                  throw new io.sluice.exceptions.RejectedSetupException("not today");
                })
            .noClient()
            .start()) {
      ReactorRequester client = h.connect();
      StepVerifier.create(client.onClose())
          .expectErrorSatisfies(
              e -> {
                assertThat(e).isInstanceOf(io.sluice.exceptions.RejectedSetupException.class);
                assertThat(e).hasMessage("not today");
              })
          .verify(TIMEOUT);
      StepVerifier.create(client.requestResponse(msg("x"))).expectError(SluiceException.class).verify(TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void oversizedFrameIsAConnectionError(TestTransport t) {
    ConnectionOptions o = ConnectionOptions.builder().maxFrameSize(4096).build();
    try (Harness h = Harness.builder(t).serverOptions(o).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      if (t == TestTransport.TCP) {
        // Only the length prefix of a 16 MiB frame and a few bytes: the server must refuse it
        // from the prefix alone, without waiting for (or buffering) the rest.
        byte[] header = FrameBuilder.requestResponse(1).toBytes();
        byte[] huge = new byte[3 + header.length];
        huge[0] = huge[1] = huge[2] = (byte) 0xFF;
        System.arraycopy(header, 0, huge, 3, header.length);
        peer.sendRaw(huge);
      } else {
        peer.send(FrameBuilder.requestResponse(1).data("x".repeat(5000)));
      }
      assertConnectionLevelError(peer, ErrorCode.CONNECTION_ERROR);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void frameAtTheLimitIsServed(TestTransport t) {
    ConnectionOptions o = ConnectionOptions.builder().maxFrameSize(4096).build();
    try (Harness h = Harness.builder(t).serverOptions(o).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      peer.send(FrameBuilder.requestResponse(1).data("y".repeat(4096 - 6)));
      WireFrame p = peer.next(WireFrame.PAYLOAD);
      assertThat(p.dataUtf8()).startsWith("server:yyy");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void malformedFrameIsAConnectionError(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      peer.send( // metadata length past the end of the frame
          FrameBuilder.requestResponse(1).metadata(new byte[10]).declaredMetadataLength(1000));
      assertConnectionLevelError(peer, ErrorCode.CONNECTION_ERROR);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void silentClientIsClosedAfterItsMaxLifetime(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup().keepAlive(50).lifetime(200));
      assertConnectionLevelError(peer, ErrorCode.CONNECTION_ERROR);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void serverEchoesKeepAlive(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      peer.send(FrameBuilder.keepAlive(true, 0).data("are you there"));
      WireFrame k = peer.next(WireFrame.KEEPALIVE);
      assertThat(k.has(WireFrame.KEEPALIVE_R)).isFalse();
      assertThat(k.dataUtf8()).isEqualTo("are you there");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientKeepAliveAgainstARawServer(TestTransport t) throws Exception {
    ConnectionOptions o =
        ConnectionOptions.builder().keepAlive(Duration.ofMillis(50), Duration.ofMillis(400)).build();
    if (t == TestTransport.TCP) {
      try (RawPeer.TcpServer raw = new RawPeer.TcpServer()) {
        CompletableFuture<ReactorRequester> client =
            SluiceClient.builder(io.sluice.transport.netty.TcpClientTransport.create("127.0.0.1", raw.port()))
                .options(o)
                .connect()
                .toFuture();
        try (RawPeer server = raw.accept()) {
          checkClientKeepAlive(server, client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
      }
    } else {
      try (LocalRawPeer.Server raw = new LocalRawPeer.Server()) {
        CompletableFuture<ReactorRequester> client =
            SluiceClient.builder(raw.clientTransport())
                .options(o)
                .connect()
                .toFuture();
        try (RawPeer server = raw.accept()) {
          checkClientKeepAlive(server, client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
      }
    }
  }

  private static void checkClientKeepAlive(RawPeer server, ReactorRequester client) {
    WireFrame setup = server.next(WireFrame.SETUP);
    assertThat(setup.setupKeepAlive()).as("keepalive interval").isEqualTo(50);
    // KEEPALIVE R=1 at the interval; the server echoes them and asks one of its own.
    for (int i = 0; i < 3; i++) {
      WireFrame k = server.next(); // next(KEEPALIVE) would skip these
      assertThat(k.type()).as("%s", k).isEqualTo(WireFrame.KEEPALIVE);
      assertThat(k.streamId()).isZero();
      assertThat(k.has(WireFrame.KEEPALIVE_R)).isTrue();
      server.send(FrameBuilder.keepAlive(false, 0));
    }
    server.send(FrameBuilder.keepAlive(true, 0).data("ping from server"));
    WireFrame echo = server.next(WireFrame.KEEPALIVE); // skips the client's own (R=1)
    assertThat(echo.has(WireFrame.KEEPALIVE_R)).isFalse();
    assertThat(echo.dataUtf8()).isEqualTo("ping from server");
    // Now the server goes silent: the client gives up after its max lifetime.
    WireFrame error = server.nextSkippingKeepAlives();
    assertThat(error.type()).isEqualTo(WireFrame.ERROR);
    assertThat(error.streamId()).isZero();
    assertThat(error.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    server.assertClosed();
    StepVerifier.create(client.onClose())
        .expectError(io.sluice.exceptions.ConnectionErrorException.class)
        .verify(TIMEOUT);
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestsBeyondMaxActiveStreamsAreRejected(TestTransport t) {
    ConnectionOptions server = ConnectionOptions.builder().maxActiveStreams(2).build();
    ReactorResponder slow =
        new EchoResponder("server") {
          @Override
          public Flux<Message> requestStream(Message request) {
            request.release();
            return Flux.never();
          }
        };
    try (Harness h = Harness.builder(t).serverOptions(server).responder(slow).start()) {
      reactor.core.Disposable a = h.client.requestStream(msg("a")).subscribe(Message::release);
      reactor.core.Disposable b = h.client.requestStream(msg("b")).subscribe(Message::release);
      StepVerifier.create(h.client.requestStream(msg("c")))
          .expectErrorSatisfies(
              e -> {
                assertThat(e).isInstanceOf(RejectedException.class);
                assertThat(((SluiceException) e).errorCode()).isEqualTo(ErrorCode.REJECTED);
              })
          .verify(TIMEOUT);
      // Fire-and-forget does not count; the connection is fine.
      h.client.fireAndForget(msg("fnf")).block(TIMEOUT);
      a.dispose();
      // Room again once one ended (the cancel reaches the server before the next request).
      Message reply = null;
      for (int i = 0; i < 100 && reply == null; i++) {
        reply = h.client.requestResponse(msg("rr")).onErrorResume(RejectedException.class, e -> Mono.empty()).block(TIMEOUT);
      }
      assertThat(text(reply)).isEqualTo("server:rr");
      b.dispose();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void aPeerThatStopsReadingPausesTheProducer(TestTransport t) throws Exception {
    int window = 32;
    int size = 1024;
    AtomicLong produced = new AtomicLong();
    ReactorResponder infinite =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestStream(Message request) {
            request.release();
            return Flux.<Message, Long>generate(
                () -> 0L,
                (i, sink) -> {
                  produced.incrementAndGet();
                  sink.next(Message.of(Harness.ALLOC.buffer(size).writeZero(size)));
                  return i + 1;
                });
          }
        };
    ConnectionOptions o =
        ConnectionOptions.builder().outboundWindow(window).maxQueuedOutboundBytes(64 * 1024).build();
    try (Harness h = Harness.builder(t).serverOptions(o).responder(infinite).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(FrameBuilder.setup());
      peer.reading(false);
      peer.send(FrameBuilder.requestStream(1, Integer.MAX_VALUE).data("flood"));
      // Wait until production stops (it must), at most a few seconds.
      long last = -1;
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < deadline) {
        Thread.sleep(100);
        long now = produced.get();
        if (now == last && now > 0) {
          break;
        }
        last = now;
      }
      long stalled = produced.get();
      // Local: 64 KiB in flight + a window. TCP: plus what the socket buffers hold (the peer's
      // receive buffer is small, the kernel's send buffer is not) — far from unbounded either way.
      long bound = t == TestTransport.LOCAL ? 64 + 2L * window + 4 : 16 * 1024;
      assertThat(stalled).isPositive().isLessThanOrEqualTo(bound);
      // The peer reads again: the stream flows, and its cancel ends it.
      peer.reading(true);
      long target = stalled + 500;
      long waitUntil = System.nanoTime() + TIMEOUT.toNanos();
      while (produced.get() < target && System.nanoTime() < waitUntil) {
        Thread.sleep(10);
      }
      assertThat(produced.get()).isGreaterThanOrEqualTo(target);
      peer.send(FrameBuilder.cancel(1));
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void bulkDataBothWaysThroughSmallWriteBuffersDoesNotDeadlock(TestTransport t) {
    // Both peers go unwritable at once; if either stopped reading because of that alone, each
    // would wait for the other to read, forever (it did, over the local transport).
    int count = 1000;
    int size = 4096;
    ConnectionOptions o = ConnectionOptions.builder().maxQueuedOutboundBytes(16 * 1024).build();
    try (Harness h = Harness.builder(t).options(o).responder(new EchoResponder("server")).start()) {
      Long echoed =
          h.client
              .requestChannel(
                  Flux.range(0, count).map(i -> Message.of(Harness.ALLOC.buffer(size).writeZero(size))))
              .doOnNext(Message::release)
              .count()
              .block(Duration.ofSeconds(30));
      assertThat(echoed).isEqualTo(count);
    }
  }
}
