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
import io.sluice.test.ManualClockLoop;
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

  /**
   * In-JVM, the server and the raw peer run on a {@link ManualClockLoop}: nothing comes before the
   * clock reaches the timeout, and the peer is attached before the timer can fire. Over TCP the
   * check is on what follows the timeout only.
   */
  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void noSetupWithinTheSetupTimeout(TestTransport t) throws InterruptedException {
    ConnectionOptions o = ConnectionOptions.builder().setupTimeout(Duration.ofMillis(100)).build();
    ManualClockLoop clock = t == TestTransport.LOCAL ? new ManualClockLoop() : null;
    try (Harness h = Harness.builder(t).loop(clock).serverOptions(o).noClient().start();
        RawPeer peer = h.raw()) {
      if (clock != null) {
        clock.advanceMillis(99);
        assertThat(peer.pending()).as("frames before the setup timeout").isZero();
        clock.advanceMillis(1);
      }
      assertConnectionLevelError(peer, ErrorCode.INVALID_SETUP);
    } finally {
      shutdown(clock);
    }
  }

  private static void shutdown(ManualClockLoop clock) throws InterruptedException {
    if (clock != null) {
      clock.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
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

  /**
   * A client's keepalives against a raw server: KEEPALIVE R=1 at the interval, the server's ones
   * echoed, and CONNECTION_ERROR once the server stays silent past the max lifetime.
   *
   * <p>In-JVM, the client runs on a {@link ManualClockLoop}, so the test moves the clock: every
   * interval and the lifetime are exact, and the server's answers cannot come "too late". Over TCP
   * (netty's loops, real time) the two halves use two connections: the first with a max lifetime
   * far beyond the test's waits, so that the server's answers never race it; the second with a
   * 400 ms one against a server that says nothing, checked by what follows the timeout only.
   */
  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientKeepAliveAgainstARawServer(TestTransport t) throws Exception {
    if (t == TestTransport.TCP) {
      ConnectionOptions patient =
          ConnectionOptions.builder().keepAlive(Duration.ofMillis(50), Duration.ofMinutes(5)).build();
      try (RawPeer.TcpServer raw = new RawPeer.TcpServer()) {
        CompletableFuture<ReactorRequester> connecting = connectTcp(raw, patient);
        try (RawPeer server = raw.accept()) {
          ReactorRequester client = connecting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
          try {
            exchangeKeepAlives(server, client, null);
          } finally {
            client.dispose();
            client.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
          }
        }
      }
      ConnectionOptions o =
          ConnectionOptions.builder().keepAlive(Duration.ofMillis(50), Duration.ofMillis(400)).build();
      try (RawPeer.TcpServer raw = new RawPeer.TcpServer()) {
        CompletableFuture<ReactorRequester> client = connectTcp(raw, o);
        try (RawPeer server = raw.accept()) {
          assertThat(server.next(WireFrame.SETUP).setupKeepAlive())
              .as("keepalive interval")
              .isEqualTo(50);
          assertGivesUp(server, client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
      }
    } else {
      ConnectionOptions o =
          ConnectionOptions.builder().keepAlive(Duration.ofMillis(50), Duration.ofMillis(400)).build();
      // Both ends on the clock's loop: what the client sends has reached the raw peer once the
      // clock stopped moving.
      ManualClockLoop clock = new ManualClockLoop();
      try (LocalRawPeer.Server raw = new LocalRawPeer.Server(clock, Harness.ALLOC)) {
        CompletableFuture<ReactorRequester> client =
            SluiceClient.builder(raw.clientTransport()).options(o).connect().toFuture();
        try (RawPeer server = raw.accept()) {
          ReactorRequester c = client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
          exchangeKeepAlives(server, c, clock);
          // The ping echoed, the client heard it: the next tick notes it, then silence.
          clock.advanceMillis(50);
          WireFrame tick = server.next();
          assertThat(tick.type()).as("%s", tick).isEqualTo(WireFrame.KEEPALIVE);
          assertThat(tick.has(WireFrame.KEEPALIVE_R)).isTrue();
          clock.advanceMillis(350);
          assertThat(c.isOpen()).as("open after 350 ms of a 400 ms max lifetime").isTrue();
          clock.advanceMillis(100);
          assertGivesUp(server, c);
        }
      } finally {
        shutdown(clock);
      }
    }
  }

  private static CompletableFuture<ReactorRequester> connectTcp(
      RawPeer.TcpServer raw, ConnectionOptions o) {
    return SluiceClient.builder(
            io.sluice.transport.netty.TcpClientTransport.create("127.0.0.1", raw.port()))
        .options(o)
        .connect()
        .toFuture();
  }

  /**
   * SETUP with the interval, three KEEPALIVE R=1 answered, then the server's own KEEPALIVE R=1
   * echoed. With a clock, each keepalive is sent when the clock reaches its interval.
   */
  private static void exchangeKeepAlives(
      RawPeer server, ReactorRequester client, ManualClockLoop clock) {
    WireFrame setup = server.next(WireFrame.SETUP);
    assertThat(setup.setupKeepAlive()).as("keepalive interval").isEqualTo(50);
    for (int i = 0; i < 3; i++) {
      if (clock != null) {
        clock.advanceMillis(49);
        assertThat(server.pending()).as("frames before the keepalive interval").isZero();
        clock.advanceMillis(1);
      }
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
    assertThat(client.isOpen()).isTrue();
  }

  /** The server says nothing more: the client gives up after its max lifetime. */
  private static void assertGivesUp(RawPeer server, ReactorRequester client) {
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
