package io.sluice.interop.guide;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.metadata.CompositeMetadata;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.transport.netty.TcpClientTransport;

/**
 * docs/guide/transports.md, "Routes and composite metadata": compiled here, where sluice-metadata,
 * sluice-reactor and the TCP transport are all on the class path. GuideSnippetsTest (sluice-examples)
 * checks the page against the tagged regions.
 */
final class RoutesGuide {
  private RoutesGuide() {}

  static void client(ByteBuf data) {
    // tag::routes[]
    // Client: SETUP declares composite metadata; each request carries its route.
    ReactorRequester client = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", 7000))
        .setup(ClientSetup.of(CompositeMetadata.MIME_TYPE, "application/json", null))
        .connect().block();
    ByteBuf metadata = client.alloc().buffer();
    CompositeMetadata.encodeRoute(metadata, "echo.route");        // written in place, no copies
    client.requestResponse(Message.of(metadata, data)).block();
    // end::routes[]
  }

  static String server(Message request) {
    // tag::routes[]

    // Server: read the route without allocating per entry.
    String route = CompositeMetadata.route(request.metadata());   // "echo.route", or null
    CompositeMetadata.Reader r = CompositeMetadata.reader(request.metadata());
    while (r.next()) { /* r.wellKnownType(), r.mimeType(), r.content() (a slice) */ }
    // end::routes[]
    return route;
  }
}
