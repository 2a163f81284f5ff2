package io.sluice.reactor;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/** The transports every API-level test runs over: in-JVM and TCP on the loopback interface. */
enum TestTransport {
  LOCAL {
    @Override
    Server server() {
      String name = "sluice-test-" + COUNTER.incrementAndGet();
      return new Server(LocalTransport.server(name), bound -> LocalTransport.client(name));
    }
  },
  TCP {
    @Override
    Server server() {
      return new Server(
          TcpServerTransport.create("127.0.0.1", 0),
          bound -> {
            InetSocketAddress a = (InetSocketAddress) bound.address();
            return TcpClientTransport.create("127.0.0.1", a.getPort());
          });
    }
  };

  private static final AtomicInteger COUNTER = new AtomicInteger();

  /** A fresh server transport and how to reach it once bound. */
  abstract Server server();

  record Server(
      ServerTransport transport,
      java.util.function.Function<ServerTransport.Bound, ClientTransport> clientFor) {}
}
