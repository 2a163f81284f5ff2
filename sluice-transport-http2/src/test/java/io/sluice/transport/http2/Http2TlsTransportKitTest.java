package io.sluice.transport.http2;

import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.Tls;
import java.net.InetSocketAddress;
import java.time.Duration;

/** The HTTP/2 stream mapping over TLS (ALPN h2) runs the transport test kit. */
class Http2TlsTransportKitTest extends Http2TransportKitTest {
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  // Handshakes (and the preface after them) get a minute, and so does the client's connect, which
  // the handshake counts in: the kit opens 200 connections at once, on a machine that may be busy.
  private static final SslContext SERVER =
      Tls.server(CERT).alpn("h2").handshakeTimeout(Duration.ofMinutes(1)).build();
  private static final SslContext CLIENT =
      Tls.client().trust(CERT.certificate()).alpn("h2").handshakeTimeout(Duration.ofMinutes(1)).build();

  @Override
  protected ServerTransport serverTransport() {
    return Http2ServerTransport.create("127.0.0.1", 0).withSsl(SERVER).withPrefaceTimeout(Duration.ofMinutes(1));
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return Http2ClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort())
        .withSsl(CLIENT)
        .withConnectTimeoutMillis(60_000);
  }
}
