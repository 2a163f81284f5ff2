package io.sluice.transport.multiprotocol;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.requestBlock;
import static io.sluice.transport.http2.RawH2Peer.rsocketData;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.http2.RawH2Peer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One server, one HTTP/2 connection, three protocols (issue 33): on the one-port server with gRPC's
 * routes, a single h2c connection carries a request-response of the RSocket stream mapping, a gRPC
 * call and an RFC 8441 WebSocket CONNECT side by side, each answered by its own protocol.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // hang guard only
class OneHttp2ConnectionAllProtocolsTest {
  private static final Duration GUARD = Duration.ofSeconds(20);

  @Test
  void theMappingGrpcAndWebSocketShareOneConnection() throws Exception {
    SluiceServer server =
        Connections.start(
                MultiProtocolServerTransport.create("127.0.0.1", 0)
                    .withHttpRoutes(GrpcServices.of(ServiceRegistry.builder().build()).httpRoutes()),
                ConnectionOptions.defaults(),
                (setup, requester) -> new Responder() {})
            .get(GUARD.toSeconds(), TimeUnit.SECONDS);
    try (RawH2Peer p = RawH2Peer.handshake(((InetSocketAddress) server.address()).getPort())) {
      p.send(concat(
          // The stream mapping: the default responder answers ERROR (rsocket-status 513).
          headers(1, false, requestBlock("/rsocket/response")),
          rsocketData(1, true, FrameBuilder.requestResponse(1).data("x").toBytes()),
          // gRPC: a method nobody serves, answered trailers-only with UNIMPLEMENTED (12).
          headers(3, true, RawH2Peer.Hpack.block(
              ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/no.Such/Method",
              "content-type", "application/grpc", "te", "trailers")),
          // WebSocket over HTTP/2 on the WebSocket path: accepted with 200.
          headers(5, false, RawH2Peer.Hpack.block(
              ":method", "CONNECT", ":protocol", "websocket", ":scheme", "http", ":authority", "127.0.0.1",
              ":path", MultiProtocolServerTransport.DEFAULT_WEBSOCKET_PATH, "sec-websocket-version", "13"))));
      assertThat(p.await(q -> q.headers.containsKey(1) && q.headers.containsKey(3) && q.headers.containsKey(5), GUARD))
          .as("answers on the three streams: %s", p.headers)
          .isTrue();
      Http2Headers mapping = last(p.headers.get(1));
      assertThat(mapping.get("content-type")).hasToString("application/rsocket+http2");
      assertThat(mapping.get("rsocket-status")).hasToString("513");
      assertThat(last(p.headers.get(3)).get("grpc-status")).hasToString("12");
      assertThat(p.headers.get(5).get(0).status()).hasToString("200");
      assertThat(p.pingFence(9)).as("the connection still answers after the three answers").isTrue();
      assertThat(p.goAway).as("the connection stays up").isNull();
    } finally {
      server.stop(Duration.ZERO).get(GUARD.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private static Http2Headers last(List<Http2Headers> blocks) {
    return blocks.get(blocks.size() - 1);
  }
}
