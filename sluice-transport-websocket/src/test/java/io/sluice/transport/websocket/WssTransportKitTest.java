package io.sluice.transport.websocket;

import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;
import java.time.Duration;

/** RSocket over WebSocket over TLS (wss), with a certificate made at test time, runs the kit. */
class WssTransportKitTest extends TransportTestKit {
  /** A hang guard: the kit opens 200 TLS connections at once, under PARANOID, beside other tests. */
  private static final java.time.Duration HANDSHAKE_GUARD = java.time.Duration.ofMinutes(1);

  private static final Tls.SelfSigned CERTIFICATE = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER = Tls.server(CERTIFICATE).handshakeTimeout(HANDSHAKE_GUARD).build();
  private static final SslContext CLIENT = Tls.client().trust(CERTIFICATE.certificate()).handshakeTimeout(HANDSHAKE_GUARD).build();

  @Override
  protected ServerTransport serverTransport() {
    return WebSocketServerTransport.create("127.0.0.1", 0).withSsl(SERVER).withUpgradeTimeout(Duration.ofSeconds(60));
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    int port = ((InetSocketAddress) server.address()).getPort();
    // manyConnectionsAtOnce starts 200 TLS handshakes together; on a loaded 2-core CI machine they
    // took longer than the 5 s default upgrade deadline (which this kit is not about), so the kit
    // waits as long as its own guards do.
    return WebSocketClientTransport.create("127.0.0.1", port).withSsl(CLIENT).withUpgradeTimeout(Duration.ofSeconds(60));
  }
}
