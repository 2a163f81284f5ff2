package io.sluice.transport.http2;

import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.Tls;
import java.net.InetSocketAddress;

/** WebSocket over HTTP/2 over TLS (ALPN h2) runs the whole transport test kit. */
class WebSocketOverHttp2TlsKitTest extends WebSocketOverHttp2KitTest {
  /** A hang guard: the kit opens 200 TLS connections at once, under PARANOID, beside other tests. */
  private static final java.time.Duration HANDSHAKE_GUARD = java.time.Duration.ofMinutes(1);

  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER = Tls.server(CERT).alpn("h2").handshakeTimeout(HANDSHAKE_GUARD).build();
  private static final SslContext CLIENT = Tls.client().trust(CERT.certificate()).alpn("h2").handshakeTimeout(HANDSHAKE_GUARD).build();

  @Override
  protected ServerTransport serverTransport() {
    return WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withPath("/rsocket").withSsl(SERVER);
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return WebSocketOverHttp2ClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort())
        .withPath("/rsocket")
        .withSsl(CLIENT);
  }
}
