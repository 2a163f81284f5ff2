package io.sluice.spring.boot;

import io.netty.handler.ssl.SslContext;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.multiprotocol.MultiProtocolServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.netty.UnixServerTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Makes the server {@link SluiceServerProperties} describes. Each RSocket transport is served
 * through {@link Connections#start} (a {@link SluiceServer} that drains), gRPC through {@link
 * GrpcServer}.
 */
final class SluiceServerFactory {
  /** What TLS offers in ALPN: h2 for the HTTP/2 wires, http/1.1 for WebSocket and HTTP/JSON. */
  static final String[] ALPN = {"h2", "http/1.1"};

  /** How long binding may take. */
  static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);

  private SluiceServerFactory() {}

  /** A bound server: what the lifecycle stops and the health indicator looks at. */
  interface Handle {
    SocketAddress address();

    /** Live connections, or -1 when the transport does not count them. */
    int connections();

    CompletableFuture<Void> stop(Duration grace);

    /** Completes once the listener is closed. */
    CompletableFuture<Void> onClose();
  }

  static Handle start(
      SluiceServerProperties p,
      ServiceRegistry registry,
      RpcInstrumentation rsocketCalls,
      RpcInstrumentation grpcCalls,
      List<Consumer<ConnectionOptions.Builder>> customizers) {
    SslContext ssl = ssl(p.getTls());
    SluiceServerProperties.Limits limits = p.getLimits();
    try {
      if (p.getTransport() == SluiceServerProperties.Transport.GRPC) {
        GrpcServer server = GrpcServer.create(p.getHost(), p.getPort()).withServices(grpc(registry, limits, grpcCalls));
        if (ssl != null) {
          server = server.withSsl(ssl);
        }
        if (limits.getMaxConnections() != null) {
          server = server.withMaxConnections(limits.getMaxConnections());
        }
        if (limits.getMaxConcurrentStreams() != null) {
          server = server.withMaxConcurrentStreams(limits.getMaxConcurrentStreams());
        }
        GrpcServer.Running running = server.bind().get(BIND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return new Handle() {
          @Override
          public SocketAddress address() {
            return running.address();
          }

          @Override
          public int connections() {
            return -1;
          }

          @Override
          public CompletableFuture<Void> stop(Duration grace) {
            return running.stop(grace);
          }

          @Override
          public CompletableFuture<Void> onClose() {
            return running.onClose();
          }
        };
      }
      ServerTransport transport = transport(p, registry, ssl, grpcCalls);
      SluiceServer server =
          Connections.start(transport, options(p, customizers), RpcResponder.acceptor(registry, rsocketCalls))
              .get(BIND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return new Handle() {
        @Override
        public SocketAddress address() {
          return server.address();
        }

        @Override
        public int connections() {
          return server.connections();
        }

        @Override
        public CompletableFuture<Void> stop(Duration grace) {
          return server.stop(grace);
        }

        @Override
        public CompletableFuture<Void> onClose() {
          return server.onClose();
        }
      };
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Sluice server (" + where(p) + "): cannot bind: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Sluice server (" + where(p) + "): not bound after " + BIND_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Sluice server (" + where(p) + "): interrupted while binding", e);
    }
  }

  static String where(SluiceServerProperties p) {
    String wire = p.getTransport().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    return wire + " " + (p.getTransport() == SluiceServerProperties.Transport.UNIX
        ? String.valueOf(p.getPath())
        : p.getHost() + ":" + p.getPort());
  }

  private static GrpcServices grpc(
      ServiceRegistry registry, SluiceServerProperties.Limits limits, RpcInstrumentation instrumentation) {
    GrpcServices services = GrpcServices.of(registry).withInstrumentation(instrumentation);
    if (limits.getMaxInboundMessageSize() != null) {
      services = services.withMaxInboundMessageSize(bytes(limits.getMaxInboundMessageSize(), "max-inbound-message-size"));
    }
    return services;
  }

  /** The RSocket transport; {@code instrumentation} observes the one port's gRPC-wire calls. */
  private static ServerTransport transport(
      SluiceServerProperties p, ServiceRegistry registry, SslContext ssl, RpcInstrumentation instrumentation) {
    SluiceServerProperties.Limits limits = p.getLimits();
    Integer maxConnections = limits.getMaxConnections();
    switch (p.getTransport()) {
      case TCP:
        {
          TcpServerTransport t = TcpServerTransport.create(p.getHost(), p.getPort());
          t = maxConnections == null ? t : t.withMaxConnections(maxConnections);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case UNIX:
        {
          if (p.getPath() == null) {
            throw new IllegalStateException("sluice.server.transport=unix needs sluice.server.path (the socket file)");
          }
          UnixServerTransport t = UnixServerTransport.create(p.getPath());
          t = maxConnections == null ? t : t.withMaxConnections(maxConnections);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case WEBSOCKET:
        {
          WebSocketServerTransport t =
              WebSocketServerTransport.create(p.getHost(), p.getPort()).withPath(p.getWebsocketPath());
          t = maxConnections == null ? t : t.withMaxConnections(maxConnections);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case H2:
        {
          Http2ServerTransport t = Http2ServerTransport.create(p.getHost(), p.getPort());
          t = maxConnections == null ? t : t.withMaxConnections(maxConnections);
          if (limits.getMaxConcurrentStreams() != null) {
            t = t.withMaxConcurrentStreams(limits.getMaxConcurrentStreams());
          }
          return ssl == null ? t : t.withSsl(ssl);
        }
      case ONE_PORT:
        {
          MultiProtocolServerTransport t =
              MultiProtocolServerTransport.create(p.getHost(), p.getPort())
                  .withWebSocketPath(p.getWebsocketPath())
                  .withHttpRoutes(grpc(registry, limits, instrumentation).httpRoutes());
          t = maxConnections == null ? t : t.withMaxConnections(maxConnections);
          if (limits.getMaxConcurrentStreams() != null) {
            t = t.withMaxConcurrentStreams(limits.getMaxConcurrentStreams());
          }
          return ssl == null ? t : t.withSsl(ssl);
        }
      default:
        throw new IllegalStateException("not an RSocket transport: " + p.getTransport());
    }
  }

  /** The connection options of the RSocket transports: the limits and the lease policy. */
  static ConnectionOptions options(SluiceServerProperties p, List<Consumer<ConnectionOptions.Builder>> customizers) {
    SluiceServerProperties.Limits l = p.getLimits();
    ConnectionOptions defaults = ConnectionOptions.defaults();
    ConnectionOptions.Builder b = defaults.toBuilder();
    if (l.getMaxFrameSize() != null) {
      b.maxFrameSize(bytes(l.getMaxFrameSize(), "max-frame-size"));
    }
    if (l.getMaxReassembledSize() != null) {
      b.maxReassembledSize(bytes(l.getMaxReassembledSize(), "max-reassembled-size"));
    }
    if (l.getMaxActiveStreams() != null) {
      b.maxActiveStreams(l.getMaxActiveStreams());
    }
    if (l.getMaxQueuedOutboundBytes() != null) {
      b.maxQueuedOutboundBytes(bytes(l.getMaxQueuedOutboundBytes(), "max-queued-outbound-bytes"));
    }
    if (l.getSetupTimeout() != null) {
      b.setupTimeout(l.getSetupTimeout());
    }
    if (l.getKeepaliveInterval() != null || l.getKeepaliveMaxLifetime() != null) {
      b.keepAlive(
          l.getKeepaliveInterval() != null ? l.getKeepaliveInterval() : defaults.keepAliveInterval(),
          l.getKeepaliveMaxLifetime() != null ? l.getKeepaliveMaxLifetime() : defaults.keepAliveMaxLifetime());
    }
    SluiceServerProperties.Lease lease = p.getLease();
    b.lease(lease.isEnabled());
    if (lease.isEnabled()) {
      LeasePolicy policy = policy(lease);
      if (policy != null) {
        b.leasePolicy(policy);
      }
    }
    for (Consumer<ConnectionOptions.Builder> c : customizers) {
      c.accept(b);
    }
    return b.build();
  }

  private static LeasePolicy policy(SluiceServerProperties.Lease lease) {
    switch (lease.getPolicy()) {
      case FIXED:
        return LeasePolicy.fixed(lease.getTtl(), lease.getRequests());
      case ADAPTIVE:
        return AdaptiveLeasePolicy.withDefaults();
      default:
        return null;
    }
  }

  static int bytes(org.springframework.util.unit.DataSize size, String name) {
    long b = size.toBytes();
    if (b < 0 || b > Integer.MAX_VALUE) {
      throw new IllegalStateException("sluice.server.limits." + name + " must be 0 to 2 GiB, got " + size);
    }
    return (int) b;
  }

  /** The server's TLS context, or null without TLS. */
  static SslContext ssl(SluiceServerProperties.Tls tls) {
    if (!tls.isEnabled()) {
      return null;
    }
    if (tls.getCertificate() == null || tls.getPrivateKey() == null) {
      throw new IllegalStateException(
          "sluice.server.tls.enabled=true needs sluice.server.tls.certificate and sluice.server.tls.private-key (PEM files)");
    }
    Tls.ServerBuilder b = Tls.server(tls.getCertificate(), tls.getPrivateKey()).alpn(ALPN);
    if (tls.getClientCa() != null) {
      b.requireClientCertificates(tls.getClientCa());
    }
    return b.build();
  }
}
