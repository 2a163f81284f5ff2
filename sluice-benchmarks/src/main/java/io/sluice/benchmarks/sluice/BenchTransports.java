package io.sluice.benchmarks.sluice;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ClientTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.UnixClientTransport;
import io.sluice.transport.netty.UnixServerTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every transport the benchmarks run Sluice over, in one place: the impl names {@code sluice@T},
 * {@code ./sluice bench --transport T} and the latency table ({@code --latency
 * --compare-transports}) all read {@link #ALL}. Adding a transport is one entry in {@link #ALL}
 * (and its module in this module's pom), and taking its name off {@link #NOT_BUILT}.
 */
public final class BenchTransports {
  private BenchTransports() {}

  /** Where a server listens or a client connects: 127.0.0.1 and a port, or a unix socket file. */
  public record Address(int port, Path socket) {}

  /** Makes a server on {@code loop}, with TLS unless {@code ssl} is null; the port 0 picks one. */
  @FunctionalInterface
  public interface ServerMaker {
    ServerTransport make(Address at, EventLoopGroup loop, SslContext ssl);
  }

  /** Makes a client on {@code loop}, with TLS unless {@code ssl} is null (it trusts any server). */
  @FunctionalInterface
  public interface ClientMaker {
    ClientTransport make(Address at, EventLoopGroup loop, SslContext ssl);
  }

  /**
   * A transport: its name on the command line, its server and its client, and the ALPN protocol
   * its TLS client offers.
   */
  public record BenchTransport(String name, ServerMaker server, ClientMaker client, String alpn) {
    BenchTransport(String name, ServerMaker server, ClientMaker client) {
      this(name, server, client, "http/1.1");
    }
  }

  /** The host name a unix-socket TLS client checks (the bench's self-signed certificate names it). */
  static final String LOCAL_NAME = "localhost";

  /** The transports, in the order tables show them. */
  public static final List<BenchTransport> ALL =
      List.of(
          new BenchTransport("tcp", BenchTransports::tcpServer, BenchTransports::tcpClient),
          new BenchTransport("uds", BenchTransports::udsServer, BenchTransports::udsClient),
          new BenchTransport("ws", BenchTransports::wsServer, BenchTransports::wsClient),
          new BenchTransport("h2", BenchTransports::h2Server, BenchTransports::h2Client, "h2"),
          new BenchTransport("ws-h2", BenchTransports::wsH2Server, BenchTransports::wsH2Client, "h2"));

  /** Transports named but not in this build yet (none now): named, they are a clear error. */
  public static final List<String> NOT_BUILT = List.of();

  /** A transport named on the command line that is planned but not in this build. */
  public static final class NotBuiltException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotBuiltException(String name) {
      super("transport " + name + " is not built yet");
    }
  }

  /** The names of {@link #ALL}. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (BenchTransport t : ALL) {
      names.add(t.name());
    }
    return List.copyOf(names);
  }

  /**
   * The transport named {@code name}, or null if there is none; a {@link NotBuiltException} for a
   * name of {@link #NOT_BUILT}.
   */
  public static BenchTransport find(String name) {
    for (BenchTransport t : ALL) {
      if (t.name().equals(name)) {
        return t;
      }
    }
    if (NOT_BUILT.contains(name)) {
      throw new NotBuiltException(name);
    }
    return null;
  }

  private static ServerTransport tcpServer(Address at, EventLoopGroup loop, SslContext ssl) {
    TcpServerTransport t = TcpServerTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ClientTransport tcpClient(Address at, EventLoopGroup loop, SslContext ssl) {
    TcpClientTransport t = TcpClientTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ServerTransport udsServer(Address at, EventLoopGroup loop, SslContext ssl) {
    UnixServerTransport t = UnixServerTransport.create(at.socket()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ClientTransport udsClient(Address at, EventLoopGroup loop, SslContext ssl) {
    UnixClientTransport t = UnixClientTransport.create(at.socket()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl, LOCAL_NAME);
  }

  private static ServerTransport wsServer(Address at, EventLoopGroup loop, SslContext ssl) {
    WebSocketServerTransport t =
        WebSocketServerTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ClientTransport wsClient(Address at, EventLoopGroup loop, SslContext ssl) {
    WebSocketClientTransport t =
        WebSocketClientTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ServerTransport h2Server(Address at, EventLoopGroup loop, SslContext ssl) {
    Http2ServerTransport t = Http2ServerTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ClientTransport h2Client(Address at, EventLoopGroup loop, SslContext ssl) {
    Http2ClientTransport t = Http2ClientTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  private static ServerTransport wsH2Server(Address at, EventLoopGroup loop, SslContext ssl) {
    WebSocketOverHttp2ServerTransport t =
        WebSocketOverHttp2ServerTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }

  /** The connections of one client transport share one TCP connection, a stream each. */
  private static ClientTransport wsH2Client(Address at, EventLoopGroup loop, SslContext ssl) {
    WebSocketOverHttp2ClientTransport t =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", at.port()).withEventLoopGroup(loop);
    return ssl == null ? t : t.withSsl(ssl);
  }
}
