package io.sluice.examples.guide;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.Acceptor;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.netty.UnixClientTransport;
import io.sluice.transport.netty.UnixServerTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The code of docs/guide/transports.md and README's transports, compiled so that it cannot rot
 * (GuideSnippetsTest compares each block with its region here). Not run: the addresses, files and
 * certificates are the reader's.
 */
final class TransportsGuide {
  private TransportsGuide() {}

  static void transportsAtAGlance(Path cert, Path key) {
    // tag::readme[]
    TcpServerTransport.create("0.0.0.0", 7878);                            // TCP: epoll, io_uring or NIO
    UnixServerTransport.create(Path.of("/run/app/rsocket.sock"));           // a unix socket, file 0600
    WebSocketServerTransport.create("0.0.0.0", 8080).withPath("/rsocket");  // browsers, rsocket-js
    TcpServerTransport.create("0.0.0.0", 7443).withSsl(Tls.server(cert, key).build()); // TLS on each
    // end::readme[]
  }

  static void webSocket(ReactorResponder myResponder) {
    // tag::websocket[]
    ServerTransport.Bound server =
        SluiceServer.builder(
                WebSocketServerTransport.create("0.0.0.0", 8080)
                    .withPath("/rsocket")
                    .withAllowedOrigins(Set.of("https://app.example.com")))
            .responder(myResponder)
            .bind()
            .block();

    ReactorRequester client =
        SluiceClient.builder(WebSocketClientTransport.create(URI.create("ws://localhost:8080/rsocket")))
            .connect()
            .block();
    // end::websocket[]
  }

  static void tls(Path cert, Path key, Path ca) throws Exception {
    // tag::tls[]
    // Server: its certificate chain (its own certificate first) and its key.
    SslContext server = Tls.server(Path.of("server.crt"), Path.of("server.key")).build();
    TcpServerTransport.create("0.0.0.0", 7878).withSsl(server);

    // Client: trusts the CA(s) in ca.crt (the JDK's default CAs if trust() is not called) and checks
    // that the server's certificate names the host it connects to.
    SslContext client = Tls.client().trust(Path.of("ca.crt")).build();
    TcpClientTransport.create("service.example", 7878).withSsl(client);

    // Mutual TLS: the server requires a client certificate signed by a CA in clients-ca.crt.
    Tls.server(cert, key).requireClientCertificates(Path.of("clients-ca.crt")).build();
    Tls.client().trust(ca).certificate(Path.of("client.crt"), Path.of("client.key")).build();

    // Demos: a self-signed certificate made at start (EC P-256, a year, in memory only) ...
    Tls.SelfSigned self = Tls.selfSigned("localhost", "127.0.0.1");
    SslContext demoServer = Tls.server(self).build();
    Files.writeString(Path.of("demo-ca.crt"), self.certificatePem()); // ... which a client may trust,
    SslContext demoClient = Tls.client().insecure().build();            // or trust nothing at all
    // end::tls[]
  }

  static void nativeIo(EventLoopGroup myEpollGroup) {
    // tag::native-io[]
    // The default, IoMode.AUTO: epoll, else io_uring, when netty's native library loads; else NIO.
    TcpServerTransport server = TcpServerTransport.create("0.0.0.0", 7878);
    // A named engine: an IllegalStateException right here, saying why, when it cannot load.
    TcpClientTransport client = TcpClientTransport.create("10.0.0.5", 7878).withIo(IoMode.EPOLL);
    // A group of your own: its engine decides the channel type (EventLoops.newGroup(n, name, mode)
    // makes one; a group of another engine than withIo named is an IllegalArgumentException).
    TcpServerTransport pinned = server.withEventLoopGroup(myEpollGroup);
    // end::native-io[]
  }

  static void unixSockets(Acceptor acceptor) throws Exception {
    // tag::uds[]
    Path socket = Path.of("/run/myservice/rsocket.sock");
    ServerTransport.Bound bound =
        Connections.serve(UnixServerTransport.create(socket), ConnectionOptions.defaults(), acceptor)
            .get(10, TimeUnit.SECONDS);
    Requester requester =
        Connections.connect(UnixClientTransport.create(socket), ConnectionOptions.defaults(),
                ClientSetup.defaults(), r -> new Responder() {})
            .get(10, TimeUnit.SECONDS);
    // end::uds[]
  }
}
