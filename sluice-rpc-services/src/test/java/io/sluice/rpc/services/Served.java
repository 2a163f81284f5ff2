package io.sluice.rpc.services;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A registry served over RSocket on TCP (127.0.0.1, an ephemeral port) and one client connection
 * to it. {@link #close()} disposes the client, then closes the server.
 */
final class Served implements AutoCloseable {
  /** How long a test waits for anything: a hang guard only, never a timed assertion. */
  static final Duration WAIT = Duration.ofSeconds(10);

  private final ServerTransport.Bound server;
  private final ReactorRequester requester;

  Served(ServiceRegistry registry) throws Exception {
    server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0), ConnectionOptions.defaults(), RpcResponder.acceptor(registry))
            .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    int port = ((InetSocketAddress) server.address()).getPort();
    requester = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT);
  }

  /** The client's connection, for generated clients' constructors. */
  io.sluice.Requester requester() {
    return requester.unwrap();
  }

  @Override
  public void close() throws Exception {
    requester.dispose();
    server.close();
  }
}
