package io.sluice.transport.http2;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/**
 * WebSocket over HTTP/2 (h2c) runs the whole transport test kit: each stream is a full RSocket
 * connection, so requests the server starts and METADATA_PUSH are carried, and the kit's
 * connections to one server share one TCP connection.
 */
class WebSocketOverHttp2KitTest extends TransportTestKit {
  @Override
  protected ServerTransport serverTransport() {
    return WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withPath("/rsocket");
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return WebSocketOverHttp2ClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort())
        .withPath("/rsocket");
  }
}
