package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.RejectedException;
import io.sluice.internal.EngineTestBase.Recorder;
import io.sluice.internal.LeaseTestKit.Holding;
import io.sluice.internal.LeaseTestKit.TestPolicy;
import io.sluice.lease.LeasePolicy;
import io.sluice.test.ManualClockLoop;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real client engine against a {@link SluiceServer} (from {@link Connections#start}) over
 * in-memory pipes on one event loop with a hand-moved clock: leases granted by the server's policy
 * reach the client's availability, and {@link SluiceServer#stop} drains.
 */
class SluiceServerEngineTest {
  private SingleThreadEventExecutor loop;
  private ManualClockLoop clock;
  private final PipeServer transport = new PipeServer();
  private final Holding responder = new Holding();
  private final List<SluiceConnection> clients = new ArrayList<>();
  private SluiceServer server;

  @BeforeEach
  void startLoop() {
    clock = new ManualClockLoop();
    loop = clock;
  }

  @AfterEach
  void stopLoop() throws Exception {
    try {
      for (SluiceConnection c : clients) {
        Loop.run(loop, c::dispose);
      }
      if (server != null) {
        server.stop(Duration.ZERO);
      }
      Loop.settle(loop);
    } finally {
      loop.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
          .await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /** A ServerTransport whose connections are pipes the test opens. */
  private final class PipeServer implements ServerTransport {
    Consumer<DuplexTransport> onConnection;
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    final List<PipeTransport> serverEnds = new ArrayList<>();

    @Override
    public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
      this.onConnection = onConnection;
      return CompletableFuture.completedFuture(
          new Bound() {
            @Override
            public SocketAddress address() {
              return InetSocketAddress.createUnresolved("pipe", 1);
            }

            @Override
            public void close() {
              closed.complete(null);
            }

            @Override
            public CompletableFuture<Void> onClose() {
              return closed;
            }
          });
    }

    /** A client connection to the server, set up (and leased, when it asks) once this returns. */
    SluiceConnection connect(ConnectionOptions options) {
      assertThat(closed).as("the listener is closed").isNotDone();
      PipeTransport[] ends = PipeTransport.pair(loop);
      serverEnds.add(ends[0]);
      Loop.run(loop, () -> onConnection.accept(ends[0]));
      SluiceConnection c =
          Loop.call(
              loop,
              () ->
                  SluiceConnection.client(
                      ends[1], options, ClientSetup.defaults(), r -> new Responder() {}));
      clients.add(c);
      Loop.await(c.ready());
      Loop.settle(loop);
      return c;
    }
  }

  private SluiceServer start(ConnectionOptions options) {
    server = Loop.await(Connections.start(transport, options, (setup, requester) -> responder));
    return server;
  }

  private Message msg(String data) {
    return Message.utf8(Wire.ALLOC, data);
  }

  @Test
  void aGrantMadeOnAnotherThreadReachesTheClientsAvailabilityRankByRank() {
    TestPolicy policy = new TestPolicy(); // grants 5 for 10 s at attach
    start(ConnectionOptions.builder().leasePolicy(policy).build());
    SluiceConnection client = transport.connect(ConnectionOptions.builder().lease(true).build());
    assertThat(client.availability()).isEqualTo(1.0);
    assertThat(client.availability(1_000)).isEqualTo(1.0);

    policy.grants.grant(Duration.ofSeconds(10), 8, 1); // from the test's thread
    Loop.settle(loop);
    assertThat(client.availability(0)).isEqualTo(1.0);
    assertThat(client.availability(1)).isEqualTo(1.0);
    assertThat(client.availability(2)).as("above the server's maxRank").isZero();

    Recorder r = new Recorder();
    Loop.run(loop, () -> client.requestResponse(msg("q"), r));
    Loop.settle(loop);
    responder.take();
    assertThat(client.availability(1)).isEqualTo(7 / 8.0);
    assertThat(policy.grants.remaining()).isEqualTo(7);
  }

  @Test
  void stopSendsLeaseZeroAndCloseLetsTheLiveStreamFinishAndCompletes() {
    start(
        ConnectionOptions.builder()
            .leasePolicy(LeasePolicy.fixed(Duration.ofSeconds(10), 100))
            .build());
    SluiceConnection client = transport.connect(ConnectionOptions.builder().lease(true).build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> client.requestStream(msg("live"), 2, live));
    Loop.settle(loop);
    StreamHandle h = responder.take();
    assertThat(server.connections()).isEqualTo(1);
    assertThat(client.availability()).isGreaterThan(0.9);

    CompletableFuture<Void> stopped = new CompletableFuture<>();
    Recorder late = new Recorder();
    Loop.run(
        loop,
        () -> {
          server.stop(Duration.ofSeconds(30)).whenComplete((v, e) -> stopped.complete(null));
          // Sent before the client heard of the stop: the draining server refuses it.
          client.requestResponse(msg("late"), late);
        });
    assertThat(transport.closed).as("the listener closes at once").isDone();
    List<String> written = transport.serverEnds.get(0).written;
    int lease0 = written.indexOf("LEASE 0");
    assertThat(lease0).as("LEASE 0 in %s", written).isPositive();
    assertThat(written.get(lease0 + 1)).as("after LEASE 0 in %s", written).isEqualTo("ERROR 0x102");
    Loop.settle(loop);
    assertThat(client.availability()).as("at once").isZero();
    assertThat(client.availability(0)).isZero();
    EngineTestBase.Ev refused = late.take("error");
    assertThat(refused.error()).isInstanceOf(RejectedException.class);
    Recorder after = new Recorder();
    Loop.run(loop, () -> client.requestResponse(msg("after"), after));
    assertThat(after.take("error").error()).isInstanceOf(ConnectionCloseException.class);
    assertThat(stopped).as("a stream is live").isNotDone();

    Loop.run(loop, () -> h.next(msg("1")));
    Loop.run(loop, () -> h.next(msg("2")));
    Loop.run(loop, h::complete);
    assertThat(live.take("next").data()).isEqualTo("1");
    assertThat(live.take("next").data()).isEqualTo("2");
    live.take("complete");
    Loop.await(stopped);
    assertThat(server.connections()).isZero();
    assertThat(Loop.awaitOutcome(client.onClose())).isNull();
    assertThat(responder.seen).containsExactly("rs:live");
  }

  @Test
  void stopClosesAStreamThatNeverEndsAtGrace() {
    start(ConnectionOptions.builder().build());
    SluiceConnection client = transport.connect(ConnectionOptions.builder().build());
    Recorder live = new Recorder();
    Loop.run(loop, () -> client.requestStream(msg("forever"), 1, live));
    Loop.settle(loop);
    responder.take();
    CompletableFuture<Void> stopped = server.stop(Duration.ofMillis(500));
    Loop.settle(loop);
    List<String> written = transport.serverEnds.get(0).written;
    assertThat(written).as("no lease, no LEASE 0").doesNotContain("LEASE 0").contains("ERROR 0x102");
    clock.advanceMillis(499);
    Loop.settle(loop);
    assertThat(stopped).isNotDone();
    assertThat(server.connections()).isEqualTo(1);
    clock.advanceMillis(1);
    Loop.await(stopped);
    assertThat(server.connections()).isZero();
    assertThat(live.take().kind()).isEqualTo("error");
  }

  @Test
  void closeIsStopWithTheDrainTimeout() {
    start(ConnectionOptions.builder().drainTimeout(Duration.ofMillis(200)).build());
    SluiceConnection client = transport.connect(ConnectionOptions.builder().build());
    Loop.run(loop, () -> client.requestStream(msg("forever"), 1, new Recorder()));
    Loop.settle(loop);
    responder.take();
    server.close();
    assertThat(transport.closed).isDone();
    Loop.settle(loop);
    clock.advanceMillis(199);
    Loop.settle(loop);
    assertThat(server.connections()).isEqualTo(1);
    clock.advanceMillis(1);
    Loop.awaitOutcome(client.onClose());
    Loop.await(server.stop(Duration.ofSeconds(1))); // the same stop, already done
    assertThat(server.connections()).isZero();
  }

  @Test
  void connectionsAreCountedUntilTheyCloseAndAnIdleServerStopsAtOnce() {
    start(ConnectionOptions.builder().build());
    SluiceConnection a = transport.connect(ConnectionOptions.builder().build());
    transport.connect(ConnectionOptions.builder().build());
    assertThat(server.connections()).isEqualTo(2);
    Loop.run(loop, a::dispose);
    Loop.settle(loop);
    assertThat(server.connections()).isEqualTo(1);
    assertThatThrownBy(() -> server.stop(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    Loop.await(server.stop(Duration.ofSeconds(5))); // no stream: closes at once
    assertThat(server.connections()).isZero();
    assertThat(server.address()).isNotNull();
  }
}
