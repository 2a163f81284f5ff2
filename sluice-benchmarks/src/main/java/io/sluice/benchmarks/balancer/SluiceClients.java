package io.sluice.benchmarks.balancer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.util.concurrent.CompletableFuture;

/**
 * Sluice's client connections of {@code ./sluice bench --balancer}: TCP to 127.0.0.1, default
 * options (with leasing asked for or not), all on one event loop, as one client process would.
 */
final class SluiceClients {
  /** The request of every call: 8 bytes, shared. */
  static final ByteBuf REQUEST = Unpooled.unreleasableBuffer(Unpooled.directBuffer(8).writeZero(8));

  private final EventLoopGroup loop = EventLoops.newGroup(1, "sluice-client-loop");
  private final boolean lease;

  SluiceClients(boolean lease) {
    this.lease = lease;
  }

  /** Connects to 127.0.0.1:{@code port}; completes once requests may be sent. */
  CompletableFuture<Requester> connect(int port) {
    return Connections.connect(
        TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(loop),
        ConnectionOptions.builder().lease(lease).build(),
        ClientSetup.defaults(),
        r -> new Responder() {});
  }

  /** Stops the event loop (after the connections are closed). */
  void shutdown() {
    loop.shutdownGracefully();
  }
}
