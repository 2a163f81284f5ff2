package io.sluice.micrometer;

import static io.sluice.micrometer.Exchanges.await;
import static io.sluice.micrometer.Exchanges.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.exceptions.RejectedException;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The connection meters through a real server and client, over the local transport and over
 * TCP: frames by type counted exactly each way on both sides, bytes equal across the wire, streams
 * by interaction and outcome, connections opened and closed with their causes, a limit hit. Every
 * figure here would stay 0 (or the meter would be missing) if its hook in the engine were not
 * called.
 */
class ConnectionMetersTest {
  private static final int CALLS = 7;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceMetrics metrics = SluiceMetrics.of(registry);

  private ConnectionOptions observed() {
    return ConnectionOptions.builder().observer(metrics.connections()).build();
  }

  private double frames(String transport, String side, String type, String direction) {
    return value(registry, "sluice.frames", "transport", transport, "side", side, "type", type, "direction", direction);
  }

  private void exchange(String transport, ServerTransport st, java.util.function.Function<java.net.SocketAddress, ClientTransport> ct)
      throws Exception {
    SluiceServer server =
        Connections.start(st, observed(), (setup, requester) -> Exchanges.echo()).get(60, TimeUnit.SECONDS);
    Requester client =
        Connections.connect(ct.apply(server.address()), observed(), ClientSetup.defaults(), r -> new io.sluice.Responder() {})
            .get(60, TimeUnit.SECONDS);
    try {
      for (int i = 0; i < CALLS; i++) {
        assertThat(Exchanges.call(client, "hello " + i)).isEqualTo("hello " + i);
      }
      assertThat(await(() -> frames(transport, "server", "PAYLOAD", "out"), CALLS)).isEqualTo(CALLS);
      assertThat(frames(transport, "server", "SETUP", "in")).isEqualTo(1);
      assertThat(frames(transport, "server", "REQUEST_RESPONSE", "in")).isEqualTo(CALLS);
      assertThat(frames(transport, "server", "REQUEST_RESPONSE", "out")).isZero();
      assertThat(frames(transport, "client", "SETUP", "out")).isEqualTo(1);
      assertThat(frames(transport, "client", "REQUEST_RESPONSE", "out")).isEqualTo(CALLS);
      assertThat(frames(transport, "client", "PAYLOAD", "in")).isEqualTo(CALLS);
      assertThat(value(registry, "sluice.streams", "transport", transport, "side", "server",
              "interaction", "request_response", "outcome", "complete"))
          .isEqualTo(CALLS);
      assertThat(value(registry, "sluice.streams", "transport", transport, "side", "client",
              "interaction", "request_response", "outcome", "complete"))
          .isEqualTo(CALLS);
      assertThat(value(registry, "sluice.streams.started", "transport", transport, "side", "server",
              "interaction", "request_response"))
          .isEqualTo(CALLS);
      assertThat(value(registry, "sluice.connections", "transport", transport, "side", "server")).isEqualTo(1);
      assertThat(value(registry, "sluice.connections.opened", "transport", transport, "side", "client")).isEqualTo(1);
      // What one side sent is what the other received (keepalives may still be on their way:
      // compare the bytes of the frames counted above only when no keepalive went, else bound).
      double clientOut = value(registry, "sluice.bytes", "transport", transport, "side", "client", "direction", "out");
      double serverIn = await(() -> value(registry, "sluice.bytes", "transport", transport, "side", "server", "direction", "in"), clientOut);
      assertThat(serverIn).isEqualTo(clientOut).isGreaterThan(0);
    } finally {
      client.close();
      client.onClose().handle((v, e) -> null).get(60, TimeUnit.SECONDS);
    }
    // Closed: the open gauge drops, the counts stay (folded into the retired totals).
    assertThat(await(() -> value(registry, "sluice.connections", "transport", transport, "side", "server"), 0)).isZero();
    assertThat(await(() -> value(registry, "sluice.connections.closed", "transport", transport, "side", "server",
            "cause", "peer_close"), 1)).isEqualTo(1);
    assertThat(value(registry, "sluice.connections.closed", "transport", transport, "side", "client",
            "cause", "local_close")).isEqualTo(1);
    assertThat(frames(transport, "server", "REQUEST_RESPONSE", "in")).isEqualTo(CALLS);
    assertThat(frames(transport, "client", "PAYLOAD", "in")).isEqualTo(CALLS);
    assertThat(value(registry, "sluice.errors", "transport", transport, "side", "client",
            "code", "CONNECTION_CLOSE", "direction", "out")).isEqualTo(1);
    assertThat(value(registry, "sluice.errors", "transport", transport, "side", "server",
            "code", "CONNECTION_CLOSE", "direction", "in")).isEqualTo(1);
    server.close();
  }

  @Test
  void framesBytesStreamsAndConnectionsOverTheLocalTransport() throws Exception {
    String name = "metrics-" + UUID.randomUUID();
    exchange("local", LocalTransport.server(name), a -> LocalTransport.client(name));
  }

  @Test
  void framesBytesStreamsAndConnectionsOverTcp() throws Exception {
    exchange("tcp", TcpServerTransport.create("127.0.0.1", 0), a -> TcpClientTransport.create((InetSocketAddress) a));
  }

  @Test
  void aRefusedStreamCountsItsLimitAndARejectedOutcome() throws Exception {
    String name = "metrics-limit-" + UUID.randomUUID();
    ConnectionOptions serverOptions =
        ConnectionOptions.builder().observer(metrics.connections()).maxActiveStreams(1).build();
    SluiceServer server =
        Connections.start(LocalTransport.server(name), serverOptions, (setup, requester) -> Exchanges.echo())
            .get(60, TimeUnit.SECONDS);
    Requester client =
        Connections.connect(LocalTransport.client(name), observed(), ClientSetup.defaults(), r -> new io.sluice.Responder() {})
            .get(60, TimeUnit.SECONDS);
    try {
      StreamHandle first = client.requestStream(Exchanges.msg(client.alloc(), "a"), 1, StreamListener.DISCARDING);
      CompletableFuture<Throwable> refused = new CompletableFuture<>();
      client.requestStream(
          Exchanges.msg(client.alloc(), "b"),
          1,
          new Exchanges.Quiet() {
            @Override
            public void onError(Throwable cause) {
              refused.complete(cause);
            }
          });
      assertThat(refused.get(60, TimeUnit.SECONDS)).isInstanceOf(RejectedException.class);
      assertThat(value(registry, "sluice.limits.hit", "transport", "local", "side", "server", "limit", "maxActiveStreams"))
          .isEqualTo(1);
      assertThat(value(registry, "sluice.streams", "transport", "local", "side", "server",
              "interaction", "request_stream", "outcome", "rejected"))
          .isEqualTo(1);
      assertThat(value(registry, "sluice.streams", "transport", "local", "side", "client",
              "interaction", "request_stream", "outcome", "error"))
          .isEqualTo(1);
      assertThat(value(registry, "sluice.streams.active", "transport", "local", "side", "server",
              "interaction", "request_stream"))
          .isEqualTo(1);
      assertThat(value(registry, "sluice.errors", "transport", "local", "side", "client",
              "code", "REJECTED", "direction", "in"))
          .isEqualTo(1);
      first.cancel();
      assertThat(await(() -> value(registry, "sluice.streams", "transport", "local", "side", "server",
              "interaction", "request_stream", "outcome", "canceled"), 1)).isEqualTo(1);
      assertThat(value(registry, "sluice.streams.active", "transport", "local", "side", "server",
              "interaction", "request_stream"))
          .isZero();
    } finally {
      client.dispose();
      client.onClose().handle((v, e) -> null).get(60, TimeUnit.SECONDS);
      server.close();
    }
  }

  @Test
  void metersAreMadeOncePerTransportAndSideNotPerConnection() throws Exception {
    String name = "metrics-many-" + UUID.randomUUID();
    SluiceServer server =
        Connections.start(LocalTransport.server(name), observed(), (setup, requester) -> Exchanges.echo())
            .get(60, TimeUnit.SECONDS);
    int before = -1;
    for (int i = 0; i < 5; i++) {
      Requester client =
          Connections.connect(LocalTransport.client(name), observed(), ClientSetup.defaults(), r -> new io.sluice.Responder() {})
              .get(60, TimeUnit.SECONDS);
      Exchanges.call(client, "x");
      client.dispose();
      client.onClose().handle((v, e) -> null).get(60, TimeUnit.SECONDS);
      int meters = registry.getMeters().size();
      if (before >= 0) {
        assertThat(meters).as("meters after connection %d", i).isEqualTo(before);
      }
      before = meters;
    }
    assertThat(await(() -> value(registry, "sluice.connections.opened", "transport", "local", "side", "server"), 5)).isEqualTo(5);
    assertThat(await(() -> value(registry, "sluice.frames", "transport", "local", "side", "server",
            "type", "REQUEST_RESPONSE", "direction", "in"), 5)).isEqualTo(5);
    for (Meter m : registry.getMeters()) {
      assertThat(m.getId().getTag("transport")).as("transport tag of %s", m.getId()).isNotNull();
      assertThat(m.getId().getTag("side")).as("side tag of %s", m.getId()).isNotNull();
    }
    server.close();
  }
}
