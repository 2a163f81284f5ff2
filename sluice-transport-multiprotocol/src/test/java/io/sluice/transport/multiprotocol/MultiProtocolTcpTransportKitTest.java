package io.sluice.transport.multiprotocol;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/** RSocket over TCP through the one-port server runs the transport test kit. */
class MultiProtocolTcpTransportKitTest extends TransportTestKit {
  @Override
  protected ServerTransport serverTransport() {
    return MultiProtocolServerTransport.create("127.0.0.1", 0);
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return TcpClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort());
  }
}
