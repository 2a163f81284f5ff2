package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Acceptor;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
          try {
            Socket s = new Socket();
            int port = ((InetSocketAddress) bound.address()).getPort();
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            return new RawPeer.Tcp(s);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        }
        return new RawPeer.Local(get(LocalTransport.client(name).connect()));
      }

      @Override
      public void close() {
        bound.close();
      }
    };
  }

  RawServerSide rawServer() {
    if (this == TCP) {
      ServerSocket server;
      try {
        server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        server.setSoTimeout((int) RawPeer.TIMEOUT.toMillis());
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return new RawServerSide() {
        @Override
        public ClientTransport clientTransport() {
          return TcpClientTransport.create("127.0.0.1", server.getLocalPort());
        }

        @Override
        public RawPeer accept() {
          try {
            return new RawPeer.Tcp(server.accept());
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        }

        @Override
        public void close() {
          try {
            server.close();
          } catch (IOException e) {
            // ignore
          }
        }
      };
    }
    String name = "conformance-raw-" + NAMES.incrementAndGet();
    BlockingQueue<DuplexTransport> accepted = new LinkedBlockingQueue<>();
    ServerTransport.Bound bound = get(LocalTransport.server(name).bind(accepted::add));
    return new RawServerSide() {
      @Override
      public ClientTransport clientTransport() {
        return LocalTransport.client(name);
      }

      @Override
      public RawPeer accept() {
        try {
          DuplexTransport t = accepted.poll(RawPeer.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          assertThat(t).as("a connection from the Sluice client").isNotNull();
          return new RawPeer.Local(t);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }

      @Override
      public void close() {
        bound.close();
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
