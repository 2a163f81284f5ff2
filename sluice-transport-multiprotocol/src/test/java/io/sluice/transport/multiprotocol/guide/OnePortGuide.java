package io.sluice.transport.multiprotocol.guide;

import io.netty.handler.ssl.SslContext;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.multiprotocol.MultiProtocolServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.websocket.WebSocketClientTransport;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * docs/guide/transports.md, "One port for every protocol": compiled here, where the one-port
 * server, the clients of each protocol and sluice-reactor are all on the class path (not run: it
 * binds a fixed port and reads certificate files). GuideSnippetsTest (sluice-examples) checks the
 * page against the tagged region; OnePortTest runs the same set-up on loopback.
 */
final class OnePortGuide {
  private OnePortGuide() {}

  static ServerTransport.Bound onePort(ReactorResponder myResponder) {
    // tag::one-port[]
    // ALPN h2 for HTTP/2 clients, http/1.1 for browsers' wss; clients that offer neither (RSocket
    // over TLS, most WebSocket clients) are told apart by their first decrypted bytes.
    SslContext tls = Tls.server(Path.of("server.crt"), Path.of("server.key")).alpn("h2", "http/1.1").build();
    ServerTransport.Bound server =
        SluiceServer.builder(
                MultiProtocolServerTransport.create("0.0.0.0", 8443)
                    .withSsl(tls)                                 // without it: tcp, ws and h2c only
                    .withWebSocketPath("/rsocket")                // the default
                    .withDetectionTimeout(Duration.ofSeconds(5))) // accept to known protocol (10 s)
            .responder(myResponder)
            .bind()
            .block();

    // Each of these clients reaches that one port:
    TcpClientTransport.create("service.example", 8443);                                 // RSocket/TCP
    TcpClientTransport.create("service.example", 8443).withSsl(Tls.client().build());   // RSocket/TLS
    WebSocketClientTransport.create(URI.create("wss://service.example:8443/rsocket"));  // ws or wss
    Http2ClientTransport.create("service.example", 8443)                                // h2 (or h2c
        .withSsl(Tls.client().alpn("h2").build());                                      // without TLS)
    // end::one-port[]
    return server;
  }

  static ServerTransport.Bound readme(SslContext tls, ReactorResponder myResponder) {
    // tag::readme[]
    ServerTransport.Bound server =          // RSocket over TCP and TLS, ws, wss, h2c and h2: one port
        SluiceServer.builder(MultiProtocolServerTransport.create("0.0.0.0", 8443).withSsl(tls))
            .responder(myResponder)
            .bind()
            .block();
    // end::readme[]
    return server;
  }
}
