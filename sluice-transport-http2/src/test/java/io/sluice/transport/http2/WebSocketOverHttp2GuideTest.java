package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The WebSocket over HTTP/2 example of docs/guide/transports.md (GuideSnippetsTest compares the
 * page with the tagged region), compiled and run: two RSocket connections over one TCP connection.
 */
class WebSocketOverHttp2GuideTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only

  @Test
  void twoRSocketConnectionsOverOneTcpConnection() {
    ReactorResponder responder =
        new ReactorResponder() {
          @Override
          public Mono<Message> requestResponse(Message request) {
            return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, request.dataUtf8()))
                .doFinally(s -> request.release());
          }
        };
    // tag::ws-h2[]
    // Server: each extended CONNECT stream on /rsocket is an RSocket connection of its own.
    ServerTransport.Bound server =
        SluiceServer.builder(WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withPath("/rsocket"))
            .responder(responder)
            .bind()
            .block();
    int port = ((InetSocketAddress) server.address()).getPort();

    // Client: the connections one transport makes share one TCP connection, a stream each.
    WebSocketOverHttp2ClientTransport transport =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/rsocket");
    ReactorRequester first = SluiceClient.builder(transport).connect().block();
    ReactorRequester second = SluiceClient.builder(transport).connect().block();
    // end::ws-h2[]
    try {
      for (ReactorRequester r : new ReactorRequester[] {first, second}) {
        Message m = r.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "hi")).block(WAIT);
        try {
          assertThat(m.dataUtf8()).isEqualTo("hi");
        } finally {
          m.release();
        }
      }
      assertThat(transport.openTcpConnections()).isEqualTo(1);
    } finally {
      first.dispose();
      second.dispose();
      server.close();
    }
  }
}
