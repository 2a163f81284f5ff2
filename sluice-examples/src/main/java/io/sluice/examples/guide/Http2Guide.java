package io.sluice.examples.guide;

import io.netty.handler.ssl.SslContext;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.RequestPaths;
import io.sluice.transport.netty.Tls;
import java.nio.file.Path;

/**
 * The HTTP/2 code of docs/guide/transports.md, compiled so that it cannot rot (GuideSnippetsTest
 * compares each block with its region here). Not run: the addresses and certificates are the
 * reader's.
 */
final class Http2Guide {
  private Http2Guide() {}

  static void http2(ReactorResponder myResponder, Path cert, Path key) {
    // tag::http2[]
    SslContext serverTls = Tls.server(cert, key).alpn("h2").build();
    ServerTransport.Bound server =
        SluiceServer.builder(
                Http2ServerTransport.create("0.0.0.0", 8443)
                    .withSsl(serverTls)                  // or none: h2c with prior knowledge
                    .withMaxConcurrentStreams(256))      // SETTINGS_MAX_CONCURRENT_STREAMS
            .responder(myResponder)
            .bind()
            .block();

    ReactorRequester client =
        SluiceClient.builder(
                Http2ClientTransport.create("api.example.com", 8443)
                    .withSsl(Tls.client().alpn("h2").build())
                    // RPC calls show as POST /package.Service/Method to proxies and logs
                    .withPaths(RequestPaths.fromMetadata(CallMetadataCodec::httpPath))
                    .withKeepAliveRttListener(nanos -> System.out.println("RTT " + nanos / 1000 + " µs")))
            .connect()
            .block();
    // end::http2[]
  }
}
