package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.test.ManualClockLoop;
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
    RawPeer.Frame e = peer.nextSkippingKeepAlives();
    assertThat(e.type()).as("%s", e).isEqualTo(FrameType.ERROR);
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
        assertThat(peer.received).as("frames before the setup timeout").isEmpty();
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
      peer.send(RawPeer.request(1, FrameType.REQUEST_RESPONSE, 0, "hello?"));
      assertConnectionLevelError(peer, ErrorCode.INVALID_SETUP);
      assertThat(h.serverRequesters).as("never accepted").isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void unsupportedVersion(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup(2, 0, 1000, 5000));
      assertConnectionLevelError(peer, ErrorCode.UNSUPPORTED_SETUP);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void resumeFlagInSetup(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup(1, Frames.FLAG_SETUP_RESUME, 1000, 5000));
      assertConnectionLevelError(peer, ErrorCode.REJECTED_SETUP);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void resume(TestTransport t) {
    try (Harness h = Harness.builder(t).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.resume());
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
      peer.send(RawPeer.setup());
      RawPeer.Frame e = peer.next(FrameType.ERROR);
      assertThat(e.errorCode()).isEqualTo(ErrorCode.REJECTED_SETUP);
      assertThat(e.errorMessage()).isEqualTo("not today");
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
      peer.send(RawPeer.setup());
      if (t == TestTransport.TCP) {
        // Only the length prefix of a 16 MiB frame and a few bytes: the server must refuse it
        // from the prefix alone, without waiting for (or buffering) the rest.
        ByteBuf huge = RawPeer.ALLOC.buffer().writeMedium(0xFFFFFF).writeInt(1).writeShort(FrameType.REQUEST_RESPONSE << 10);
        peer.sendRaw(huge);
      } else {
        ByteBuf big = RawPeer.request(1, FrameType.REQUEST_RESPONSE, 0, "x".repeat(5000));
        peer.send(big);
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
      peer.send(RawPeer.setup());
      peer.send(RawPeer.request(1, FrameType.REQUEST_RESPONSE, 0, "y".repeat(4096 - 6)));
      RawPeer.Frame p = peer.next(FrameType.PAYLOAD);
      assertThat(p.dataUtf8()).startsWith("server:yyy");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void malformedFrameIsAConnectionError(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup());
      ByteBuf bad = RawPeer.ALLOC.buffer();
      Frames.writeHeader(bad, 1, FrameType.REQUEST_RESPONSE, Frames.FLAG_METADATA);
      bad.writeMedium(1000); // metadata length past the end of the frame
      bad.writeBytes(new byte[10]);
      peer.send(bad);
      assertConnectionLevelError(peer, ErrorCode.CONNECTION_ERROR);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void silentClientIsClosedAfterItsMaxLifetime(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup(1, 0, 50, 200));
      assertConnectionLevelError(peer, ErrorCode.CONNECTION_ERROR);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void serverEchoesKeepAlive(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup());
      peer.send(RawPeer.keepAlive(true, "are you there"));
      RawPeer.Frame k = peer.next(FrameType.KEEPALIVE);
      assertThat(k.has(Frames.FLAG_KEEPALIVE_RESPOND)).isFalse();
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
          assertThat(server.next(FrameType.SETUP).n()).as("keepalive interval").isEqualTo(50);
          assertGivesUp(server, client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
      }
    } else {
      ConnectionOptions o =
          ConnectionOptions.builder().keepAlive(Duration.ofMillis(50), Duration.ofMillis(400)).build();
      // Both ends on the clock's loop: what the client sends is in server.received once the clock
      // stopped moving.
      ManualClockLoop clock = new ManualClockLoop();
      try (RawPeer.LocalServer raw = new RawPeer.LocalServer(clock)) {
        CompletableFuture<ReactorRequester> client =
            SluiceClient.builder(
                    io.sluice.transport.local.LocalTransport.client(raw.name, clock, Harness.ALLOC))
                .options(o)
                .connect()
                .toFuture();
        try (RawPeer server = raw.accept()) {
          ReactorRequester c = client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
          exchangeKeepAlives(server, c, clock);
          // The ping echoed, the client heard it: the next tick notes it, then silence.
          clock.advanceMillis(50);
          assertThat(server.next(FrameType.KEEPALIVE).has(Frames.FLAG_KEEPALIVE_RESPOND)).isTrue();
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
  private static void exchangeKeepAlives(RawPeer server, ReactorRequester client, ManualClockLoop clock) {
    RawPeer.Frame setup = server.next(FrameType.SETUP);
    assertThat(setup.n()).as("keepalive interval").isEqualTo(50);
    for (int i = 0; i < 3; i++) {
      if (clock != null) {
        clock.advanceMillis(49);
        assertThat(server.received).as("frames before the keepalive interval").isEmpty();
        clock.advanceMillis(1);
      }
      RawPeer.Frame k = server.next(FrameType.KEEPALIVE);
      assertThat(k.streamId()).isZero();
      assertThat(k.has(Frames.FLAG_KEEPALIVE_RESPOND)).isTrue();
      server.send(RawPeer.keepAlive(false, ""));
    }
    server.send(RawPeer.keepAlive(true, "ping from server"));
    RawPeer.Frame echo;
    do {
      echo = server.next(FrameType.KEEPALIVE);
    } while (echo.has(Frames.FLAG_KEEPALIVE_RESPOND));
    assertThat(echo.dataUtf8()).isEqualTo("ping from server");
    assertThat(client.isOpen()).isTrue();
  }

  /** The server says nothing more: the client gives up after its max lifetime. */
  private static void assertGivesUp(RawPeer server, ReactorRequester client) {
    RawPeer.Frame error = server.nextSkippingKeepAlives();
    assertThat(error.type()).isEqualTo(FrameType.ERROR);
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
      peer.send(RawPeer.setup());
      peer.reading(false);
      peer.send(RawPeer.request(1, FrameType.REQUEST_STREAM, Integer.MAX_VALUE, "flood"));
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
      peer.send(RawPeer.cancel(1));
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
