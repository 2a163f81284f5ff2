package io.sluice.transport.netty;

import io.sluice.transport.netty.internal.EventLoops;
import java.util.Locale;

/**
 * Which of netty's I/O engines carries a transport's sockets.
 *
 * <p>{@link #AUTO} (the default) takes the first native engine that loads on this machine, in the
 * order {@link EventLoops#AUTO_ORDER} gives (measured: docs/guide/transports.md, "Native I/O"),
 * and {@link #NIO} when none does; a native engine that cannot load is logged once per JVM and
 * never fails a transport. The native engines need netty's linux-x86_64 native jars of the same
 * netty version on the class path ({@code netty-transport-native-epoll} and {@code
 * netty-transport-native-io_uring}, classifier {@code linux-x86_64}).
 *
 * <p>Naming an engine explicitly ({@code withIo(IoMode.EPOLL)} on a transport) is a promise the
 * caller relies on, so an engine that cannot load there is an {@link IllegalStateException} that
 * says why, not a silent fallback. The JVM-wide default can be set with {@code
 * -Dsluice.io=auto|nio|epoll|io_uring}; {@code -Dsluice.transport.nio=true} is the older spelling of
 * {@code -Dsluice.io=nio}. A default that names an engine which cannot load falls back to NIO with
 * the one log line, as AUTO does.
 */
public enum IoMode {
  /** epoll, else io_uring, when it loads here (Linux, native jar present); NIO otherwise. */
  AUTO,
  /** The JDK's selector-based I/O: every platform. */
  NIO,
  /** Linux epoll, through netty's native transport. */
  EPOLL,
  /** Linux io_uring, through netty's native transport (kernel 5.14 or newer). */
  IO_URING;

  /**
   * The mode named by {@code name}: {@code auto}, {@code nio}, {@code epoll} or {@code io_uring}
   * ({@code io-uring} and {@code iouring} too), in any case.
   *
   * @throws IllegalArgumentException for any other name, listing the valid ones
   */
  public static IoMode parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    switch (n) {
      case "auto":
        return AUTO;
      case "nio":
        return NIO;
      case "epoll":
        return EPOLL;
      case "io_uring":
      case "iouring":
        return IO_URING;
      default:
        throw new IllegalArgumentException(
            "unknown I/O mode '" + name + "': use auto, nio, epoll or io_uring");
    }
  }

  /** The name {@link #parse} reads: {@code auto}, {@code nio}, {@code epoll} or {@code io_uring}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether this engine can run here ({@link #AUTO} and {@link #NIO} always can). */
  public boolean isAvailable() {
    return unavailabilityCause() == null;
  }

  /** Why this engine cannot run here, or null when it can. */
  public Throwable unavailabilityCause() {
    return EventLoops.unavailabilityCause(this);
  }

  /** The engine {@link #AUTO} stands for on this machine (any other mode is itself). */
  public IoMode resolve() {
    return this == AUTO ? EventLoops.autoMode() : this;
  }
}
