package io.sluice.transport.websocket;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/** RSocket over WebSocket runs the transport test kit. */
class WebSocketTransportKitTest extends TransportTestKit {
  @Override
  protected ServerTransport serverTransport() {
    return WebSocketServerTransport.create("127.0.0.1", 0).withPath("/rsocket");
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    int port = ((InetSocketAddress) server.address()).getPort();
    return WebSocketClientTransport.create("127.0.0.1", port).withPath("/rsocket");
  }
}
