package io.sluice.reactor;

import io.netty.util.concurrent.EventExecutorGroup;
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

    @Override
    Server server(EventExecutorGroup loop) {
      String name = "sluice-test-" + COUNTER.incrementAndGet();
      return new Server(
          LocalTransport.server(name, loop, Harness.ALLOC),
          bound -> LocalTransport.client(name, loop, Harness.ALLOC));
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

  /**
   * A fresh server transport whose connections, server and client side, all run on {@code loop}
   * (a {@link io.sluice.test.ManualClockLoop}: their timers then run on the test's clock). Only the
   * in-JVM transport can: TCP needs netty's channel event loops.
   */
  Server server(EventExecutorGroup loop) {
    throw new UnsupportedOperationException(this + " runs on netty's event loops only");
  }

  record Server(
      ServerTransport transport,
      java.util.function.Function<ServerTransport.Bound, ClientTransport> clientFor) {}
}
