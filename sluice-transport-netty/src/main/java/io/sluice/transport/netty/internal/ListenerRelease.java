package io.sluice.transport.netty.internal;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * When a closed TCP listener's socket is really gone, so that a server's {@code onClose()}
 * completes with its port free: a server restarted on the same port as soon as the old one
 * stopped (a rolling restart in one process, a test) found the old socket still listening. netty
 * completes a channel's close future before the socket goes with two engines: NIO (the JDK closes
 * a socket a selector holds at that selector's next select; see {@link NioListener}) and io_uring
 * (the close is an operation submitted to the ring). epoll closes it in the close itself. A unix
 * domain socket listener is not waited for: its path, not a port, is what a new server needs, and
 * its server removes the file itself. Internal: not an API.
 */
final class ListenerRelease {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(ListenerRelease.class);

  /** Checks of a closed listener, 1 ms apart, before going on anyway (a close that never lands). */
  private static final int MAX_CHECKS = 10_000;

  private final Channel server;
  /** True once the socket is gone; null: gone as the channel closes, or nothing can tell. */
  private final BooleanSupplier released;

  private ListenerRelease(Channel server, BooleanSupplier released) {
    this.server = server;
    this.released = released;
  }

  /** For bound, still open {@code server}: on its event loop. */
  static ListenerRelease of(Channel server) {
    if (!(server.localAddress() instanceof InetSocketAddress)) {
      return new ListenerRelease(server, null);
    }
    if (server instanceof NioListener l) {
      return new ListenerRelease(server, l::released);
    }
    if (server instanceof UnixChannel u) {
      // The socket is gone once its descriptor no longer names it (the number may name another
      // file by then); where /proc cannot say, as the channel closes.
      Path fd = Path.of("/proc/self/fd/" + u.fd().intValue());
      String socket = link(fd);
      if (socket != null && socket.startsWith("socket:")) {
        return new ListenerRelease(server, () -> !socket.equals(link(fd)));
      }
    }
    return new ListenerRelease(server, null);
  }

  private static String link(Path fd) {
    try {
      return Files.readSymbolicLink(fd).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }

  /**
   * Runs {@code then} once the closed listener's socket is gone: on the server's event loop, so
   * never wait there for what {@code then} completes. If the loop is shutting down, once it has
   * ended (its end closes the socket).
   */
  void afterClose(Runnable then) {
    check(then, MAX_CHECKS);
  }

  private void check(Runnable then, int left) {
    if (released == null || released.getAsBoolean()) {
      then.run();
      return;
    }
    if (left == 0) {
      logger.warn("{}: its socket is still open {} ms after it closed; going on", server, MAX_CHECKS);
      then.run();
      return;
    }
    EventLoop loop = server.eventLoop();
    if (loop.isShuttingDown()) {
      loop.terminationFuture().addListener(f -> then.run());
      return;
    }
    loop.schedule(() -> check(then, left - 1), 1, TimeUnit.MILLISECONDS)
        .addListener(
            f -> {
              if (f.isCancelled()) { // the loop began to shut down: as above
                loop.terminationFuture().addListener(t -> then.run());
              }
            });
  }
}
