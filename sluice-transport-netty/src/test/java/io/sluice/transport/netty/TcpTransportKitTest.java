package io.sluice.transport.netty;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/** TCP (NIO, or epoll when it loads) runs the transport test kit. */
// tag::kit[]
class TcpTransportKitTest extends TransportTestKit {
  @Override
  protected ServerTransport serverTransport() {
    return TcpServerTransport.create("127.0.0.1", 0); // a fresh address for each server
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return TcpClientTransport.create((InetSocketAddress) server.address());
  }
}
// end::kit[]
