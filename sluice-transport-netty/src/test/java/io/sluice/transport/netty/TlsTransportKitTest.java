package io.sluice.transport.netty;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;

/**
 * TCP with TLS runs the transport test kit: the server presents a certificate signed by a test
 * CA, the client trusts that CA and checks the host name. On the default provider (OpenSSL where
 * netty-tcnative loads, as in this module's tests on linux-x86_64).
 */
class TlsTransportKitTest extends TransportTestKit {
  /** A hang guard: the kit opens 200 TLS connections at once, under PARANOID, beside other tests. */
  private static final java.time.Duration HANDSHAKE_GUARD = java.time.Duration.ofMinutes(1);

  private static final SslContext SERVER =
      Tls.server(TestPki.files().serverCert(), TestPki.files().serverKey())
          .handshakeTimeout(HANDSHAKE_GUARD)
          .build();
  private static final SslContext CLIENT = Tls.client().trust(TestPki.files().ca()).handshakeTimeout(HANDSHAKE_GUARD).build();

  @Override
  protected ServerTransport serverTransport() {
    return TcpServerTransport.create("127.0.0.1", 0).withSsl(SERVER);
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return TcpClientTransport.create((InetSocketAddress) server.address()).withSsl(CLIENT);
  }
}
