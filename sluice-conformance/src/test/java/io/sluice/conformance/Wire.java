package io.sluice.conformance;

import io.sluice.Acceptor;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.RawPeer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalRawPeer;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The two transports every rule runs over. */
enum Wire {
  /** sluice-transport-local: frames cross as buffers, one per frame, no length prefix. */
  LOCAL,
  /** sluice-transport-netty over 127.0.0.1, u24 length-prefixed. */
  TCP;

  private static final AtomicInteger NAMES = new AtomicInteger();

  /** A Sluice server served through {@link Connections#serve}; raw clients connect to it. */
  interface SluiceServerSide extends AutoCloseable {
    RawPeer connectRaw();

    @Override
    void close();
  }

  /** A raw server socket; a Sluice client connects through {@link #clientTransport()}. */
  interface RawServerSide extends AutoCloseable {
    ClientTransport clientTransport();

    RawPeer accept();

    @Override
    void close();
  }

  SluiceServerSide serve(ConnectionOptions options, Acceptor acceptor) {
    ServerTransport transport;
    String name = "conformance-" + NAMES.incrementAndGet();
    transport = this == TCP ? TcpServerTransport.create("127.0.0.1", 0) : LocalTransport.server(name);
    ServerTransport.Bound bound = get(Connections.serve(transport, options, acceptor));
    return new SluiceServerSide() {
      @Override
      public RawPeer connectRaw() {
        if (Wire.this == TCP) {
          return RawPeer.Tcp.connect(((InetSocketAddress) bound.address()).getPort());
        }
        return LocalRawPeer.connect(LocalTransport.client(name));
      }

      @Override
      public void close() {
        bound.close();
      }
    };
  }

  RawServerSide rawServer() {
    if (this == TCP) {
      RawPeer.TcpServer server = new RawPeer.TcpServer();
      return new RawServerSide() {
        @Override
        public ClientTransport clientTransport() {
          return TcpClientTransport.create("127.0.0.1", server.port());
        }

        @Override
        public RawPeer accept() {
          return server.accept();
        }

        @Override
        public void close() {
          server.close();
        }
      };
    }
    LocalRawPeer.Server server = new LocalRawPeer.Server();
    return new RawServerSide() {
      @Override
      public ClientTransport clientTransport() {
        return server.clientTransport();
      }

      @Override
      public RawPeer accept() {
        return server.accept();
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }

  static <T> T get(java.util.concurrent.Future<T> f) {
    try {
      return f.get(RawPeer.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
