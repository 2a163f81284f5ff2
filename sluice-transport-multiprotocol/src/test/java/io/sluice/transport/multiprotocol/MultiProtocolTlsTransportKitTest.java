package io.sluice.transport.multiprotocol;

import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/**
 * RSocket over TLS through the one-port server runs the transport test kit: the server's context
 * offers ALPN h2 and http/1.1, the client asks for neither, so the decrypted first bytes (its
 * SETUP) pick RSocket, the second detection on a connection.
 */
class MultiProtocolTlsTransportKitTest extends TransportTestKit {
  /** A hang guard: the kit opens 200 TLS connections at once, under PARANOID, beside other tests. */
  private static final java.time.Duration HANDSHAKE_GUARD = java.time.Duration.ofMinutes(1);

  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER = Tls.server(CERT).alpn("h2", "http/1.1").handshakeTimeout(HANDSHAKE_GUARD).build();
  private static final SslContext CLIENT = Tls.client().trust(CERT.certificate()).handshakeTimeout(HANDSHAKE_GUARD).build();

  @Override
  protected ServerTransport serverTransport() {
    // The detection deadline counts from the accept and so includes the TLS handshake: 200
    // handshakes at once (manyConnectionsAtOnce) under PARANOID beside other modules' tests took
    // longer than its 10 s default, and the server closed connections the kit had not finished
    // opening. The kit is not about that deadline (RefusalsTest is): it gets the hang guard too.
    return MultiProtocolServerTransport.create("127.0.0.1", 0)
        .withSsl(SERVER)
        .withDetectionTimeout(HANDSHAKE_GUARD);
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    int port = ((InetSocketAddress) server.address()).getPort();
    return TcpClientTransport.create("127.0.0.1", port).withSsl(CLIENT);
  }
}
