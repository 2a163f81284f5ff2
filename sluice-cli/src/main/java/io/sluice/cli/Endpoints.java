package io.sluice.cli;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ClientTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ServerTransport;
import io.sluice.transport.multiprotocol.MultiProtocolServerTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.netty.UnixClientTransport;
import io.sluice.transport.netty.UnixServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * The transport the options of {@code server}, {@code client}, {@code demo} and the jar's {@code
 * bench} name: {@code --transport tcp|uds|ws|h2|ws-h2}, {@code --host}/{@code --port} (all but uds),
 * {@code --path FILE} (uds), {@code --ws-path /P} (ws, ws-h2), {@code --io}, and TLS: {@code --tls} with {@code
 * --cert}/{@code --key} on a server (a self-signed certificate made at start without them) and
 * {@code --ca FILE} or {@code --insecure} on a client.
 */
final class Endpoints {
  private Endpoints() {}

  /** The transports a command can name. */
  enum Kind {
    TCP,
    UDS,
    WS,
    H2,
    /** RSocket over WebSocket over HTTP/2 (RFC 8441). */
    WS_H2;

    static Kind parse(String name) {
      switch (name) {
        case "tcp":
          return TCP;
        case "uds":
          return UDS;
        case "ws":
          return WS;
        case "h2":
          return H2;
        case "ws-h2":
          return WS_H2;
        default:
          throw new Args.UsageException("--transport is tcp, uds, ws, h2 or ws-h2, got '" + name + "'");
      }
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Speaks HTTP/2: TLS offers ALPN h2. */
    boolean http2() {
      return this == H2 || this == WS_H2;
    }
  }

  /** The echo contract's cases {@code kind} cannot carry, each with the reason. */
  static java.util.Map<String, String> uncarried(Kind kind) {
    return kind == Kind.H2
        ? java.util.Map.of("metadata-push", "the HTTP/2 stream mapping does not carry METADATA_PUSH")
        : java.util.Map.of();
  }

  /** Options every command that opens a transport takes (each with a value). */
  static final Set<String> COMMON = Set.of("transport", "host", "port", "path", "ws-path", "io");

  static final Set<String> SERVER_OPTIONS = union(COMMON, Set.of("cert", "key"));
  static final Set<String> SERVER_FLAGS = Set.of("tls");
  static final Set<String> CLIENT_OPTIONS = union(COMMON, Set.of("ca"));
  static final Set<String> CLIENT_FLAGS = Set.of("tls", "insecure");

  /**
   * What a server's TLS offers in ALPN: h2 for the HTTP/2 transport; the others ignore it (and a
   * client that offers no ALPN is served all the same).
   */
  static final String[] ALPN = {"h2", "http/1.1"};

  /** The host name a self-signed certificate names, and a unix socket client checks. */
  static final String LOCAL_NAME = "localhost";

  static Set<String> union(Set<String> a, Set<String> b) {
    java.util.HashSet<String> s = new java.util.HashSet<>(a);
    s.addAll(b);
    return Set.copyOf(s);
  }

  static Kind kind(Args a) {
    return Kind.parse(a.get("transport", "tcp"));
  }

  /** The port of {@code --port}, 0..65535 for a server (0 picks one), 1..65535 for a client. */
  static int port(Args a, int dflt, boolean server) {
    int port = a.getInt("port", dflt);
    if (port < (server ? 0 : 1) || port > 65535) {
      throw new Args.UsageException("--port must be in " + (server ? 0 : 1) + "..65535");
    }
    return port;
  }

  static String wsPath(Args a) {
    String p = a.get("ws-path", "/");
    if (!p.startsWith("/")) {
      throw new Args.UsageException("--ws-path must start with '/', got '" + p + "'");
    }
    return p;
  }

  static Path udsPath(Args a) {
    String p = a.get("path", null);
    if (p == null) {
      throw new Args.UsageException("--transport uds needs --path FILE (the socket file)");
    }
    return Path.of(p);
  }

  /** Refuses options that mean nothing for the chosen transport, so a typo is not ignored. */
  static void checkApplicable(Args a, Kind kind) {
    if (kind == Kind.UDS && (a.get("host", null) != null || a.get("port", null) != null)) {
      throw new Args.UsageException("--host and --port are for tcp, ws, h2 and ws-h2; uds takes --path FILE");
    }
    if (kind != Kind.UDS && a.get("path", null) != null) {
      throw new Args.UsageException("--path is for --transport uds");
    }
    if (kind != Kind.WS && kind != Kind.WS_H2 && a.get("ws-path", null) != null) {
      throw new Args.UsageException("--ws-path is for --transport ws and ws-h2");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Server

  /**
   * The server TLS context of {@code --tls} (null without it): from {@code --cert}/{@code --key},
   * or a self-signed certificate made now, whose PEM is written to a file named on {@code err} so
   * that a client can {@code --ca} it.
   */
  static SslContext serverTls(Args a, PrintStream err) {
    boolean tls = a.flag("tls");
    String cert = a.get("cert", null);
    String key = a.get("key", null);
    if (!tls) {
      if (cert != null || key != null) {
        throw new Args.UsageException("--cert and --key go with --tls");
      }
      return null;
    }
    if ((cert == null) != (key == null)) {
      throw new Args.UsageException("--cert and --key go together");
    }
    try {
      if (cert != null) {
        return Tls.server(Path.of(cert), Path.of(key)).alpn(ALPN).build();
      }
      Tls.SelfSigned self = Tls.selfSigned(LOCAL_NAME, "127.0.0.1", "::1");
      Path pem = Files.createTempFile("sluice-self-signed-", ".pem");
      pem.toFile().deleteOnExit();
      Files.writeString(pem, self.certificatePem(), StandardCharsets.US_ASCII);
      err.println(
          "sluice: --tls without --cert/--key: serving a self-signed certificate made at start for "
              + LOCAL_NAME + ", 127.0.0.1 and ::1; clients trust it with --ca " + pem);
      err.flush();
      return Tls.server(self).alpn(ALPN).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--tls: " + e.getMessage());
    }
  }

  /** The server transport the options name. */
  static ServerTransport server(Args a, IoMode io, PrintStream err) {
    if (ANY.equals(a.get("transport", null))) {
      return anyServer(a, io, err);
    }
    if (a.flag("console")) {
      throw new Args.UsageException("--console is served by --transport any (the one port that serves HTTP)");
    }
    Kind kind = kind(a);
    checkApplicable(a, kind);
    SslContext ssl = serverTls(a, err);
    return serverTransport(
        kind,
        a.get("host", "127.0.0.1"),
        kind == Kind.UDS ? 0 : port(a, 7878, true),
        kind == Kind.UDS ? udsPath(a) : null,
        wsPath(a),
        ssl,
        EventLoops.shared(io));
  }

  /**
   * A server of {@code kind}: on {@code host:port} (tcp, ws; ws at {@code wsPath}) or the socket
   * file {@code path} (uds), TLS with {@code ssl} unless it is null, on {@code group}'s loops.
   */
  static ServerTransport serverTransport(
      Kind kind, String host, int port, Path path, String wsPath, SslContext ssl, EventLoopGroup group) {
    switch (kind) {
      case TCP:
        {
          TcpServerTransport t = TcpServerTransport.create(host, port).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case UDS:
        {
          UnixServerTransport t = UnixServerTransport.create(path).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case WS:
        {
          WebSocketServerTransport t =
              WebSocketServerTransport.create(host, port).withPath(wsPath).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case H2:
        {
          Http2ServerTransport t = Http2ServerTransport.create(host, port).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case WS_H2:
        {
          WebSocketOverHttp2ServerTransport t =
              WebSocketOverHttp2ServerTransport.create(host, port).withPath(wsPath).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      default:
        throw new IllegalStateException(kind.toString());
    }
  }

  /** {@code server --transport any}: every protocol a TCP port can carry, on one port. */
  static final String ANY = "any";

  /**
   * The one-port server of {@code --transport any}: RSocket over TCP, WebSocket on {@code
   * --ws-path}, HTTP/2 with prior knowledge and, with {@code --tls}, each of those over TLS too
   * (ALPN h2 and http/1.1 offered), on {@code --host}/{@code --port}.
   */
  static ServerTransport anyServer(Args a, IoMode io, PrintStream err) {
    if (a.get("path", null) != null) {
      throw new Args.UsageException("--path is for --transport uds");
    }
    SslContext ssl = serverTls(a, err); // offers ALPN h2 and http/1.1
    MultiProtocolServerTransport t =
        MultiProtocolServerTransport.create(a.get("host", "127.0.0.1"), port(a, 7878, true))
            .withWebSocketPath(wsPath(a))
            .withEventLoopGroup(EventLoops.shared(io));
    if (a.flag("console")) {
      // The echo responder is plain RSocket: the console shows health and reflection, which the
      // port then serves over gRPC and HTTP/JSON, and the port's live figures.
      t = t.withHttpRoutes(GrpcServices.of(consoleServices()).withConsole().httpRoutes());
    }
    return ssl == null ? t : t.withSsl(ssl);
  }

  /** grpc.health.v1.Health (the server SERVING) and server reflection, for server --console. */
  static io.sluice.rpc.ServiceRegistry consoleServices() {
    io.sluice.rpc.services.HealthService health = new io.sluice.rpc.services.HealthService();
    health.setStatus("", io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    return io.sluice.rpc.services.ReflectionService.withReflection(
        io.sluice.rpc.ServiceRegistry.builder().add(health).build());
  }

  /** What {@code LISTENING} names: the port of a TCP or WebSocket server, the socket file of uds. */
  static String listening(ServerTransport transport, ServerTransport.Bound bound) {
    if (transport instanceof UnixServerTransport) {
      return ((UnixServerTransport) transport).path().toString();
    }
    SocketAddress address = bound.address();
    return String.valueOf(((InetSocketAddress) address).getPort());
  }

  // ---------------------------------------------------------------------------------------------
  // Client

  /**
   * The client TLS context of {@code --tls} (null without it): trusting {@code --ca FILE}, anything
   * with {@code --insecure} (said on {@code err}), or the JDK's default CAs.
   */
  static SslContext clientTls(Args a, PrintStream err, Kind kind) {
    boolean tls = a.flag("tls");
    String ca = a.get("ca", null);
    boolean insecure = a.flag("insecure");
    if (!tls) {
      if (ca != null || insecure) {
        throw new Args.UsageException("--ca and --insecure go with --tls");
      }
      return null;
    }
    if (ca != null && insecure) {
      throw new Args.UsageException("--ca and --insecure exclude each other");
    }
    Tls.ClientBuilder b = Tls.client();
    if (kind.http2()) {
      b.alpn("h2");
    }
    try {
      if (ca != null) {
        b.trust(Path.of(ca));
      } else if (insecure) {
        err.println(
            "sluice: WARNING: --insecure: the server's certificate is NOT checked; anyone on the"
                + " path can read and change this connection");
        err.flush();
        b.insecure();
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--ca: " + e.getMessage());
    }
  }

  /** The client transport the options name. */
  static ClientTransport client(Args a, IoMode io, PrintStream err) {
    Kind kind = kind(a);
    checkApplicable(a, kind);
    SslContext ssl = clientTls(a, err, kind);
    return clientTransport(
        kind,
        a.get("host", "127.0.0.1"),
        kind == Kind.UDS ? 0 : port(a, 7878, false),
        kind == Kind.UDS ? udsPath(a) : null,
        wsPath(a),
        ssl,
        EventLoops.shared(io));
  }

  /**
   * A client of {@code kind} for a server on {@code host:port} (tcp, ws; ws at {@code wsPath}) or
   * at the socket file {@code path} (uds; TLS then checks the name {@link #LOCAL_NAME}), TLS with
   * {@code ssl} unless it is null, on {@code group}'s loops.
   */
  static ClientTransport clientTransport(
      Kind kind, String host, int port, Path path, String wsPath, SslContext ssl, EventLoopGroup group) {
    switch (kind) {
      case TCP:
        {
          TcpClientTransport t = TcpClientTransport.create(host, port).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case UDS:
        {
          UnixClientTransport t = UnixClientTransport.create(path).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl, LOCAL_NAME);
        }
      case WS:
        {
          WebSocketClientTransport t =
              WebSocketClientTransport.create(host, port).withPath(wsPath).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case H2:
        {
          Http2ClientTransport t = Http2ClientTransport.create(host, port).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case WS_H2:
        {
          WebSocketOverHttp2ClientTransport t =
              WebSocketOverHttp2ClientTransport.create(host, port).withPath(wsPath).withEventLoopGroup(group);
          return ssl == null ? t : t.withSsl(ssl);
        }
      default:
        throw new IllegalStateException(kind.toString());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Both ends in one JVM (demo, the jar's bench)

  /** A server and a client of one kind on their own loops, TLS with a self-signed certificate. */
  static final class Pair {
    final ServerTransport server;
    private final Kind kind;
    private final SslContext clientSsl;
    private final EventLoopGroup clientLoop;
    private final Path socket;

    Pair(Kind kind, boolean tls, EventLoopGroup serverLoop, EventLoopGroup clientLoop) {
      this.kind = kind;
      this.clientLoop = clientLoop;
      SslContext serverSsl = null;
      SslContext clientSsl = null;
      if (tls) {
        Tls.SelfSigned self = Tls.selfSigned(LOCAL_NAME, "127.0.0.1");
        serverSsl = Tls.server(self).alpn(ALPN).build();
        Tls.ClientBuilder cb = Tls.client().trust(self.certificate());
        if (kind.http2()) {
          cb.alpn("h2");
        }
        clientSsl = cb.build();
      }
      this.clientSsl = clientSsl;
      if (kind == Kind.UDS) {
        try {
          Path dir = Files.createTempDirectory("sluice-");
          dir.toFile().deleteOnExit();
          socket = dir.resolve("s.sock");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      } else {
        socket = null;
      }
      server = serverTransport(kind, "127.0.0.1", 0, socket, "/", serverSsl, serverLoop);
    }

    /** The client for the bound server. */
    ClientTransport client(ServerTransport.Bound bound) {
      int port = kind == Kind.UDS ? 0 : ((InetSocketAddress) bound.address()).getPort();
      return clientTransport(kind, "127.0.0.1", port, socket, "/", clientSsl, clientLoop);
    }
  }
}
