package io.sluice.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import io.sluice.transport.netty.internal.ServerChannels;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Serves RSocket over a unix domain socket, with the same framing as TCP (a 24-bit length before
 * each frame), optionally with TLS. Immutable: each {@code with*} returns a new instance.
 *
 * <p><b>The socket file.</b> {@link #bind} refuses to replace a file that is not a socket ({@link
 * java.nio.file.FileAlreadyExistsException}) and a socket a server listens on ({@link
 * java.net.BindException}, address in use); a socket nobody listens on, left by a server that
 * died, is replaced. Servers that start at once on the same path take turns through a lock: an
 * POSIX record lock ({@code fcntl}) on {@code <path>.lock} beside the socket (made 0600 and left
 * in place), so that one binds and the others find it listening; {@link #bind} waits for that lock
 * on the calling thread (at most 10 s), so call it from a thread that may block, not an event loop. Once bound the file gets {@link #DEFAULT_PERMISSIONS} (owner read and write:
 * only the same user may connect) unless {@link #withPermissions} says otherwise, and closing the
 * server removes it (if it is still this server's). The path must fit the OS's socket address:
 * 107 bytes on Linux (108 with the terminating NUL), 103 on macOS.
 *
 * <p><b>I/O engine.</b> epoll's or io_uring's domain sockets when netty's native jar loads, the
 * JDK's (NIO, Java 16+) otherwise; {@link #withIo} and {@link #withEventLoopGroup} as on {@link
 * TcpServerTransport}.
 *
 * <p><b>Buffers.</b> None cross this class: frames are allocated and released by the connection
 * (its allocator is the channel's, pooled by default).
 */
public final class UnixServerTransport implements ServerTransport {
  /** Owner read and write ({@code rw-------}, 0600): only the server's user may connect. */
  public static final Set<PosixFilePermission> DEFAULT_PERMISSIONS =
      Set.copyOf(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

  /** Open connections per bound server unless {@link #withMaxConnections} says otherwise. */
  public static final int DEFAULT_MAX_CONNECTIONS = TcpServerTransport.DEFAULT_MAX_CONNECTIONS;

  private final Path path;
  private final EventLoopGroup group;
  private final IoMode io;
  private final SslContext ssl;
  private final int maxConnections;
  private final Set<PosixFilePermission> permissions;

  private UnixServerTransport(
      Path path,
      EventLoopGroup group,
      IoMode io,
      SslContext ssl,
      int maxConnections,
      Set<PosixFilePermission> permissions) {
    this.path = path;
    this.group = group;
    this.io = io;
    this.ssl = ssl;
    this.maxConnections = maxConnections;
    this.permissions = permissions;
  }

  /**
   * Listens on the socket file {@code path}.
   *
   * @throws IllegalArgumentException when the path is longer than the OS allows (the message names
   *     the limit)
   */
  public static UnixServerTransport create(Path path) {
    UnixSocketFiles.checkPath(Objects.requireNonNull(path, "path"), UnixSocketFiles.SUN_PATH_BYTES);
    return new UnixServerTransport(
        path, null, null, null, DEFAULT_MAX_CONNECTIONS, DEFAULT_PERMISSIONS);
  }

  /** The socket file this server listens on. */
  public Path path() {
    return path;
  }

  /**
   * Uses {@code group} for the listener and the accepted connections instead of a shared group;
   * its engine (NIO, epoll or io_uring) decides the channel type.
   *
   * @throws IllegalArgumentException when the group is of no such engine, or of another engine
   *     than {@link #withIo} named
   */
  public UnixServerTransport withEventLoopGroup(EventLoopGroup group) {
    IoChoice.check(Objects.requireNonNull(group, "group"), io);
    return new UnixServerTransport(path, group, io, ssl, maxConnections, permissions);
  }

  /**
   * Runs on {@code io}'s engine ({@link IoMode#AUTO}: the default). A named engine must run here.
   *
   * @throws IllegalStateException when {@code io} names an engine that cannot load here
   * @throws IllegalArgumentException when a group of another engine was given
   */
  public UnixServerTransport withIo(IoMode io) {
    IoChoice.check(group, Objects.requireNonNull(io, "io"));
    return new UnixServerTransport(path, group, io, ssl, maxConnections, permissions);
  }

  /** Serves TLS with {@code ssl} (a server context). */
  public UnixServerTransport withSsl(SslContext ssl) {
    return new UnixServerTransport(
        path, group, io, Objects.requireNonNull(ssl, "ssl"), maxConnections, permissions);
  }

  /**
   * Most connections open at once on the bound server; connections beyond it are closed on
   * accept, without a reply.
   */
  public UnixServerTransport withMaxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    return new UnixServerTransport(path, group, io, ssl, maxConnections, permissions);
  }

  /**
   * The socket file's permissions once bound (default {@link #DEFAULT_PERMISSIONS}). Connecting
   * needs write permission on the socket, and search permission on its directories; the server
   * sets these right after binding, so the directory is what keeps others out of that instant.
   */
  public UnixServerTransport withPermissions(Set<PosixFilePermission> permissions) {
    Set<PosixFilePermission> p = Set.copyOf(Objects.requireNonNull(permissions, "permissions"));
    return new UnixServerTransport(path, group, io, ssl, maxConnections, p);
  }

  /**
   * {@link #withPermissions(Set)} written as {@code ls} shows them, e.g. {@code "rw-rw----"}.
   *
   * @throws IllegalArgumentException when the text is not nine {@code rwx-} characters
   */
  public UnixServerTransport withPermissions(String permissions) {
    return withPermissions(PosixFilePermissions.fromString(permissions));
  }

  @Override
  public CompletableFuture<Bound> bind(Consumer<DuplexTransport> onConnection) {
    EventLoopGroup loops;
    IoMode engine;
    UnixSocketFiles.BindLock lock = null;
    try {
      loops = IoChoice.group(group, io);
      engine = EventLoops.modeOf(loops);
      lock = UnixSocketFiles.lockForBind(path); // held until the bind is done, either way
      UnixSocketFiles.prepareForBind(path);
    } catch (IOException | RuntimeException e) {
      if (lock != null) {
        lock.close();
      }
      return CompletableFuture.failedFuture(e);
    }
    UnixSocketFiles.BindLock held = lock;
    Object[] ours = new Object[1];
    CompletableFuture<Bound> bound;
    try {
      bound = bindChannel(onConnection, loops, engine, ours);
    } catch (RuntimeException e) {
      held.close();
      throw e;
    }
    return bound.whenComplete((b, e) -> held.close());
  }

  private CompletableFuture<Bound> bindChannel(
      Consumer<DuplexTransport> onConnection, EventLoopGroup loops, IoMode engine, Object[] ours) {
    return ServerChannels.bind(
        a -> "unix server " + a,
        loops,
        EventLoops.serverDomainSocketChannel(engine),
        EventLoops.domainSocketAddress(engine, path),
        b -> b.childOption(ChannelOption.AUTO_READ, false),
        ssl,
        maxConnections,
        ServerChannels.lengthPrefixed(onConnection),
        new ServerChannels.Hooks() {
          @Override
          public void afterBind(Channel server) throws IOException {
            ours[0] = UnixSocketFiles.fileKey(path);
            UnixSocketFiles.setPermissions(path, permissions);
          }

          @Override
          public void afterClose() {
            UnixSocketFiles.removeIfOurs(path, ours[0]);
          }
        });
  }

  @Override
  public String toString() {
    return "unix server transport " + path + (ssl != null ? " (tls)" : "");
  }
}
