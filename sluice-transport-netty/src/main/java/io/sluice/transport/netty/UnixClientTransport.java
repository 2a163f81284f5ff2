package io.sluice.transport.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLException;

/**
 * Connects to an RSocket server on a unix domain socket ({@link UnixServerTransport}), optionally
 * with TLS. Immutable: each {@code with*} returns a new instance.
 *
 * <p><b>I/O engine.</b> epoll's or io_uring's domain sockets when netty's native jar loads, the
 * JDK's (NIO, Java 16+) otherwise; {@link #withIo} and {@link #withEventLoopGroup} as on {@link
 * TcpClientTransport}.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class UnixClientTransport implements ClientTransport {
  private final Path path;
  private final EventLoopGroup group;
  private final IoMode io;
  private final SslContext ssl;
  private final String sslPeerHost;
  private final int connectTimeoutMillis;

  private UnixClientTransport(
      Path path,
      EventLoopGroup group,
      IoMode io,
      SslContext ssl,
      String sslPeerHost,
      int connectTimeoutMillis) {
    this.path = path;
    this.group = group;
    this.io = io;
    this.ssl = ssl;
    this.sslPeerHost = sslPeerHost;
    this.connectTimeoutMillis = connectTimeoutMillis;
  }

  /**
   * Connects to the socket file {@code path}.
   *
   * @throws IllegalArgumentException when the path is longer than the OS allows (the message names
   *     the limit)
   */
  public static UnixClientTransport create(Path path) {
    UnixSocketFiles.checkPath(Objects.requireNonNull(path, "path"), UnixSocketFiles.SUN_PATH_BYTES);
    return new UnixClientTransport(path, null, null, null, null, 10_000);
  }

  /**
   * Uses {@code group} instead of a shared group; its engine (NIO, epoll or io_uring) decides the
   * channel type.
   *
   * @throws IllegalArgumentException when the group is of no such engine, or of another engine
   *     than {@link #withIo} named
   */
  public UnixClientTransport withEventLoopGroup(EventLoopGroup group) {
    IoChoice.check(Objects.requireNonNull(group, "group"), io);
    return new UnixClientTransport(path, group, io, ssl, sslPeerHost, connectTimeoutMillis);
  }

  /**
   * Runs on {@code io}'s engine ({@link IoMode#AUTO}: the default). A named engine must run here.
   *
   * @throws IllegalStateException when {@code io} names an engine that cannot load here
   * @throws IllegalArgumentException when a group of another engine was given
   */
  public UnixClientTransport withIo(IoMode io) {
    IoChoice.check(group, Objects.requireNonNull(io, "io"));
    return new UnixClientTransport(path, group, io, ssl, sslPeerHost, connectTimeoutMillis);
  }

  /**
   * Speaks TLS with {@code ssl} (a client context); the handshake completes before SETUP. A unix
   * socket has no host name, so none is sent: netty's client contexts verify the server's name by
   * default and then fail the handshake ("Hostname or IP address is undefined"), so use this only
   * with a context built with {@code endpointIdentificationAlgorithm(null)}, and otherwise {@link
   * #withSsl(SslContext, String)}.
   */
  public UnixClientTransport withSsl(SslContext ssl) {
    return new UnixClientTransport(
        path, group, io, Objects.requireNonNull(ssl, "ssl"), null, connectTimeoutMillis);
  }

  /**
   * Speaks TLS with {@code ssl}, sending {@code serverName} as the peer host (SNI, and the name an
   * endpoint-identification check of the context verifies).
   */
  public UnixClientTransport withSsl(SslContext ssl, String serverName) {
    return new UnixClientTransport(
        path,
        group,
        io,
        Objects.requireNonNull(ssl, "ssl"),
        Objects.requireNonNull(serverName, "serverName"),
        connectTimeoutMillis);
  }

  /** Longest a connect may take before it fails (default 10 s). */
  public UnixClientTransport withConnectTimeoutMillis(int millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("connect timeout must be positive, got " + millis);
    }
    return new UnixClientTransport(path, group, io, ssl, sslPeerHost, millis);
  }

  @Override
  public CompletableFuture<DuplexTransport> connect() {
    EventLoopGroup loops;
    IoMode engine;
    try {
      loops = IoChoice.group(group, io);
      engine = EventLoops.modeOf(loops);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<DuplexTransport> connected = NettyClients.connect(
        loops,
        EventLoops.domainSocketChannel(engine),
        EventLoops.domainSocketAddress(engine, path),
        connectTimeoutMillis,
        b -> {},
        ssl == null
            ? null
            : ch ->
                sslPeerHost == null
                    ? ssl.newHandler(ch.alloc())
                    : ssl.newHandler(ch.alloc(), sslPeerHost, -1),
        null); // a socket file: nothing to resolve
    return connected.exceptionallyCompose(error -> CompletableFuture.failedFuture(connectError(error)));
  }

  /**
   * A failed connect names the socket file: the native engines report a missing file or a
   * refused connect with no message at all. TLS failures and a connection closed after it was made
   * keep their own exception.
   */
  private Throwable connectError(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (!(cause instanceof IOException)
        || cause instanceof SSLException
        || cause instanceof ClosedChannelException) { // connected, then closed: not a connect error
      return cause;
    }
    ConnectException e =
        new ConnectException(
            "cannot connect to the unix socket " + path + ": "
                + (cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName()));
    e.initCause(cause);
    return e;
  }

  @Override
  public String toString() {
    return "unix client " + path + (ssl != null ? " (tls)" : "");
  }
}
