package io.sluice.transport.http2;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.InetSocketAddress;

/** The HTTP/2 stream mapping (h2c) runs the transport test kit. */
class Http2TransportKitTest extends TransportTestKit {
  @Override
  protected ServerTransport serverTransport() {
    return Http2ServerTransport.create("127.0.0.1", 0);
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return Http2ClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort());
  }

  /** Only clients start streams in the mapping. */
  @Override
  protected boolean serverStartsRequests() {
    return false;
  }

  @Override
  protected boolean carriesMetadataPush() {
    return false;
  }

  /**
   * Keepalive is HTTP/2 PING, which netty answers below the engine: a frozen engine on a live
   * connection still answers it, so the kit's frozen end cannot be told from a live one.
   */
  @Override
  protected boolean canFreeze() {
    return false;
  }
}
