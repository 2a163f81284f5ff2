package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ClientTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.websocket.WebSocketClientTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One server port, every client: the TCP, TLS, WebSocket (ws and wss, with and without ALPN),
 * and HTTP/2 (h2c with prior knowledge, h2 by ALPN) clients all reach the same bound server and
 * run request-response and request-stream on it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class OnePortTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER_TLS = Tls.server(CERT).alpn("h2", "http/1.1").build();
  private static final SslContext CLIENT_TLS = Tls.client().trust(CERT.certificate()).build();
  private static final SslContext CLIENT_H2 = Tls.client().trust(CERT.certificate()).alpn("h2").build();
  private static final SslContext CLIENT_HTTP11 =
      Tls.client().trust(CERT.certificate()).alpn("http/1.1").build();

  private static ServerTransport.Bound server;
  private static int port;

  /** The clients, each as the one-port server's user would set it up. */
  enum Client {
    TCP {
      @Override
      ClientTransport transport() {
        return TcpClientTransport.create("127.0.0.1", port);
      }
    },
    TCP_TLS {
      @Override
      ClientTransport transport() {
        return TcpClientTransport.create("127.0.0.1", port).withSsl(CLIENT_TLS);
      }
    },
    WS {
      @Override
      ClientTransport transport() {
        return WebSocketClientTransport.create("127.0.0.1", port).withPath("/rsocket");
      }
    },
    /** wss without ALPN: the decrypted request line says HTTP/1.1. */
    WSS {
      @Override
      ClientTransport transport() {
        return WebSocketClientTransport.create("127.0.0.1", port).withPath("/rsocket").withSsl(CLIENT_TLS);
      }
    },
    /** wss as browsers do it: ALPN http/1.1. */
    WSS_ALPN_HTTP11 {
      @Override
      ClientTransport transport() {
        return WebSocketClientTransport.create("127.0.0.1", port).withPath("/rsocket").withSsl(CLIENT_HTTP11);
      }
    },
    H2C {
      @Override
      ClientTransport transport() {
        return Http2ClientTransport.create("127.0.0.1", port);
      }
    },
    H2_TLS {
      @Override
      ClientTransport transport() {
        return Http2ClientTransport.create("localhost", port).withSsl(CLIENT_H2);
      }
    },
    /** WebSocket over HTTP/2 (RFC 8441) on the WebSocket path, h2c. */
    WS_H2C {
      @Override
      ClientTransport transport() {
        return WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/rsocket");
      }
    },
    WS_H2_TLS {
      @Override
      ClientTransport transport() {
        return WebSocketOverHttp2ClientTransport.create("localhost", port).withPath("/rsocket").withSsl(CLIENT_H2);
      }
    };

    abstract ClientTransport transport();
  }

  @BeforeAll
  static void bind() {
    server =
        SluiceServer.builder(MultiProtocolServerTransport.create("127.0.0.1", 0).withSsl(SERVER_TLS))
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    return Mono.fromSupplier(() -> Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + take(request)));
                  }

                  @Override
                  public Flux<Message> requestStream(Message request) {
                    String s = take(request);
                    return Flux.range(0, 24).map(i -> Message.utf8(ByteBufAllocator.DEFAULT, s + i));
                  }
                })
            .bind()
            .block(WAIT);
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  static void close() {
    server.close();
    server.onClose().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
  }

  static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void requestResponseAndRequestStreamOnTheOnePort(Client kind) {
    ReactorRequester client = SluiceClient.builder(kind.transport()).connect().block(WAIT);
    try {
      Message reply = client.requestResponse(Message.utf8(client.alloc(), kind.name())).block(WAIT);
      assertThat(take(reply)).isEqualTo("echo:" + kind.name());
      List<String> items =
          client.requestStream(Message.utf8(client.alloc(), "s")).map(OnePortTest::take).collectList().block(WAIT);
      assertThat(items).hasSize(24).startsWith("s0", "s1").endsWith("s23");
    } finally {
      client.dispose();
      // Disposing ends onClose with "connection disposed": wait for the close, not its outcome.
      client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
    }
  }
}
