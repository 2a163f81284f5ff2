package io.sluice.transport.netty;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.Resolvers;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to an RSocket server over TCP, optionally with TLS. Immutable: each {@code with*}
 * returns a new instance.
 *
 * <p><b>I/O engine.</b> By default the JVM's default engine ({@link IoMode}: io_uring or epoll
 * when netty's native jar loads, NIO otherwise) on its shared group; {@link #withIo} names one,
 * {@link #withEventLoopGroup} brings a group, whose engine then decides the channel type.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class TcpClientTransport implements ClientTransport {
  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final IoMode io;
  private final SslContext ssl;
  private final String serverName; // null: the host
  private final int connectTimeoutMillis;

  private TcpClientTransport(
      String host,
      int port,
      EventLoopGroup group,
      IoMode io,
      SslContext ssl,
      String serverName,
      int connectTimeoutMillis) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.io = io;
    this.ssl = ssl;
    this.serverName = serverName;
    this.connectTimeoutMillis = connectTimeoutMillis;
  }

  /** Connects to {@code host:port}. */
  public static TcpClientTransport create(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new TcpClientTransport(
        Objects.requireNonNull(host, "host"), port, null, null, null, null, 10_000);
  }

  /** Connects to {@code address}. */
  public static TcpClientTransport create(InetSocketAddress address) {
    return create(address.getHostString(), address.getPort());
  }

  /**
   * Uses {@code group} instead of a shared group; its engine (NIO, epoll or io_uring) decides the
   * channel type.
   *
   * @throws IllegalArgumentException when the group is of no such engine, or of another engine
   *     than {@link #withIo} named
   */
  public TcpClientTransport withEventLoopGroup(EventLoopGroup group) {
    IoChoice.check(Objects.requireNonNull(group, "group"), io);
    return new TcpClientTransport(host, port, group, io, ssl, serverName, connectTimeoutMillis);
  }

  /**
   * Runs on {@code io}'s engine ({@link IoMode#AUTO}: the default). A named engine must run here.
   *
   * @throws IllegalStateException when {@code io} names an engine that cannot load here
   * @throws IllegalArgumentException when a group of another engine was given
   */
  public TcpClientTransport withIo(IoMode io) {
    IoChoice.check(group, Objects.requireNonNull(io, "io"));
    return new TcpClientTransport(host, port, group, io, ssl, serverName, connectTimeoutMillis);
  }

  /**
   * Speaks TLS with {@code ssl} (a client context); the handshake completes before SETUP. The
   * server's certificate is checked against the host this transport connects to, which is also
   * sent as SNI (unless it is an IP literal, where no SNI is sent).
   */
  public TcpClientTransport withSsl(SslContext ssl) {
    return new TcpClientTransport(
        host, port, group, io, Objects.requireNonNull(ssl, "ssl"), null, connectTimeoutMillis);
  }

  /**
   * Speaks TLS with {@code ssl} to a server known by {@code serverName} while connecting to the
   * host (typically an IP): the server's certificate is checked against {@code serverName}, and
   * {@code serverName} is sent as SNI. For addresses found by DNS discovery, whose host is the IP
   * the name resolved to: {@code withSsl(ssl, DnsAddressSource.serverName(address))}
   * (sluice-balancer), instead of turning the check off.
   */
  public TcpClientTransport withSsl(SslContext ssl, String serverName) {
    Objects.requireNonNull(serverName, "serverName");
    if (serverName.isEmpty()) {
      throw new IllegalArgumentException("serverName must not be empty");
    }
    return new TcpClientTransport(
        host, port, group, io, Objects.requireNonNull(ssl, "ssl"), serverName, connectTimeoutMillis);
  }

  /** Longest a connect may take before it fails (default 10 s). */
  public TcpClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new TcpClientTransport(host, port, group, io, ssl, serverName, millis);
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    EventLoopGroup loops = IoChoice.group(group, io);
    return NettyClients.connect(
        loops,
        EventLoops.socketChannel(EventLoops.modeOf(loops)),
        InetSocketAddress.createUnresolved(host, port),
        connectTimeoutMillis,
        b -> b.option(ChannelOption.TCP_NODELAY, true),
        ssl == null
            ? null
            : ch -> ssl.newHandler(ch.alloc(), serverName != null ? serverName : host, port),
        Resolvers.forGroup(loops)); // netty's DNS resolver: never the JDK's, blocking, on the loop
  }

  @Override
  public String toString() {
    return "tcp client " + host + ":" + port
        + (ssl == null ? "" : serverName != null ? " (tls, server name " + serverName + ")" : " (tls)");
  }
}
