package io.sluice.transport.netty;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.ServerChannels;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Serves RSocket over TCP, optionally with TLS. Immutable: each {@code with*} returns a new
 * instance.
 *
 * <p><b>I/O engine.</b> By default the JVM's default engine ({@link IoMode}: io_uring or epoll
 * when netty's native jar loads, NIO otherwise) on its shared group; {@link #withIo} names one,
 * {@link #withEventLoopGroup} brings a group, whose engine then decides the channel type.
 *
 * <p>At most {@link #DEFAULT_MAX_CONNECTIONS} connections are open at once unless {@link
 * #withMaxConnections} says otherwise; a connection over the cap is closed as soon as it is
 * accepted, before any per-connection state is built.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class TcpServerTransport implements ServerTransport {
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final IoMode io;
  private final SslContext ssl;
  private final int maxConnections;

  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  private TcpServerTransport(
      InetSocketAddress address, EventLoopGroup group, IoMode io, SslContext ssl, int maxConnections) {
    this.address = address;
    this.group = group;
    this.io = io;
    this.ssl = ssl;
    this.maxConnections = maxConnections;
  }

  /** Listens on {@code host:port}; port 0 picks a free port ({@link Bound#address()} tells). */
  public static TcpServerTransport create(String host, int port) {
    return new TcpServerTransport(
        new InetSocketAddress(host, port), null, null, null, DEFAULT_MAX_CONNECTIONS);
  }

  /**
   * Uses {@code group} for the listener and the accepted connections instead of a shared group;
   * its engine (NIO, epoll or io_uring) decides the channel type.
   *
   * @throws IllegalArgumentException when the group is of no such engine, or of another engine
   *     than {@link #withIo} named
   */
  public TcpServerTransport withEventLoopGroup(EventLoopGroup group) {
    IoChoice.check(Objects.requireNonNull(group, "group"), io);
    return new TcpServerTransport(address, group, io, ssl, maxConnections);
  }

  /**
   * Runs on {@code io}'s engine ({@link IoMode#AUTO}: the default). A named engine must run here.
   *
   * @throws IllegalStateException when {@code io} names an engine that cannot load here
   * @throws IllegalArgumentException when a group of another engine was given
   */
  public TcpServerTransport withIo(IoMode io) {
    IoChoice.check(group, Objects.requireNonNull(io, "io"));
    return new TcpServerTransport(address, group, io, ssl, maxConnections);
  }

  /** Serves TLS with {@code ssl} (a server context). */
  public TcpServerTransport withSsl(SslContext ssl) {
    return new TcpServerTransport(
        address, group, io, Objects.requireNonNull(ssl, "ssl"), maxConnections);
  }

  /**
   * Most connections open at once on the bound server; connections beyond it are closed on
   * accept, without a reply.
   */
  public TcpServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new TcpServerTransport(address, group, io, ssl, maxConnections);
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    EventLoopGroup loops = IoChoice.group(group, io);
    return ServerChannels.bind(
        a -> "tcp server " + a,
        loops,
        EventLoops.serverSocketChannel(EventLoops.modeOf(loops)),
        address,
        b ->
            b.option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false),
        ssl,
        maxConnections,
        ServerChannels.lengthPrefixed(onConnection),
        new ServerChannels.Hooks() {});
  }

  @Override
  public String toString() {
    return "tcp server transport " + address + (ssl != null ? " (tls)" : "");
  }
}
