package io.sluice.transport.netty.internal;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.transport.netty.IoMode;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Netty's I/O engines for the transports: which ones load here, the JVM's default, the shared
 * default groups (one per engine, created on first use) and the channel classes that go with a
 * group. A channel must run on a group of its own engine; {@link #modeOf} reads the engine from
 * the group, and the transports take their channel classes from it, so the two cannot disagree.
 *
 * <p>A native engine that cannot load (no native jar of this netty version, an old kernel, a
 * sandbox that forbids io_uring) makes the default fall back to NIO with one log line per JVM (see
 * {@link IoMode}): a short INFO line when the default is AUTO (the causes at debug level), a
 * warning when {@code -Dsluice.io} named the engine; an engine named in code that cannot load is an
 * {@link IllegalStateException}.
 */
public final class EventLoops {
  private EventLoops() {}

  private static final InternalLogger logger = InternalLoggerFactory.getInstance(EventLoops.class);

  /**
   * The engines {@link IoMode#AUTO} tries, best first: epoll spent less CPU per request-response
   * than io_uring on this project's machine (2-core VM, kernel 6.18) and runs in more sandboxes;
   * figures in docs/guide/transports.md, "Native I/O".
   */
  public static final List<IoMode> AUTO_ORDER = List.of(IoMode.EPOLL, IoMode.IO_URING);

  /** The one fallback line of this JVM. */
  private static final OnceLog FALLBACK = new OnceLog();

  /** Why {@code mode} cannot run here, or null when it can. Never throws. */
  public static Throwable unavailabilityCause(IoMode mode) {
    try {
      switch (mode) {
        case EPOLL:
          return Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
        case IO_URING:
          return IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
        default:
          return null;
      }
    } catch (LinkageError e) { // the classes jar itself is missing or of another netty version
      return e;
    }
  }

  /** What {@link IoMode#AUTO} stands for here: the first of {@link #AUTO_ORDER} that loads, or NIO. */
  public static IoMode autoMode() {
    IoMode m = IoSelection.firstAvailable(AUTO_ORDER, EventLoops::unavailabilityCause);
    return m == null ? IoMode.NIO : m;
  }

  private static final class Default {
    static final IoSelection.Choice CHOICE = chooseDefault();

    private static IoSelection.Choice chooseDefault() {
      IoSelection.Choice c =
          IoSelection.choose(
              System.getProperty("sluice.io"),
              Boolean.getBoolean("sluice.transport.nio"),
              AUTO_ORDER,
              EventLoops::unavailabilityCause);
      if (c.fallback() != null) {
        fallback(c);
      }
      return c;
    }
  }

  /**
   * The JVM's default engine: {@code -Dsluice.io} (or {@code -Dsluice.transport.nio=true}), else
   * {@link IoMode#AUTO}, resolved to an engine that loads here. Never {@link IoMode#AUTO}.
   */
  public static IoMode defaultMode() {
    return Default.CHOICE.mode();
  }

  /** Logs {@code c}'s fallback to NIO unless this JVM has logged one already. */
  static void fallback(IoSelection.Choice c) {
    FALLBACK.log(EventLoops::log, c);
  }

  /**
   * A fallback the user asked to avoid ({@code -Dsluice.io} named the engine) is a warning; AUTO
   * finding no native engine is expected wherever netty's native jars are absent (the default
   * build), so one short INFO line, with the causes at debug level.
   */
  private static void log(IoSelection.Choice c) {
    if (c.named()) {
      logger.warn("sluice: {}", c.fallback());
    } else {
      logger.info("sluice: {}", c.fallback());
      if (c.causes() != null) {
        logger.debug("sluice: {}", c.causes());
      }
    }
  }

  /** The JVM-wide groups by engine; the default group is also the one of its engine. */
  private static final Map<IoMode, EventLoopGroup> SHARED = new EnumMap<>(IoMode.class);

  private static EventLoopGroup sharedDefault;

  /**
   * The JVM-wide group of the default engine (one thread per core, daemon threads), created on
   * first use and shut down only by {@link #shutdownShared} (after which the next call makes a new
   * one); if a native default fails to start its loops, NIO's.
   */
  public static EventLoopGroup shared() {
    synchronized (SHARED) {
      if (sharedDefault == null) {
        EventLoopGroup g = SHARED.get(defaultMode());
        if (g == null) {
          g = newDefaultGroup(0, "sluice-io");
          SHARED.putIfAbsent(modeOf(g), g);
        }
        sharedDefault = g;
      }
      return sharedDefault;
    }
  }

  /**
   * The JVM-wide group of {@code mode} ({@link IoMode#AUTO}: {@link #shared()}), one thread per
   * core and daemon threads, created on first use and shut down only by {@link #shutdownShared}.
   *
   * @throws IllegalStateException when {@code mode} names an engine that cannot run here
   */
  public static EventLoopGroup shared(IoMode mode) {
    if (mode == IoMode.AUTO) {
      return shared();
    }
    IoMode m = requireAvailable(mode);
    synchronized (SHARED) {
      return SHARED.computeIfAbsent(m, k -> create(0, "sluice-io-" + k.label(), k));
    }
  }

  /**
   * Shuts down every shared group made so far (see {@link
   * io.sluice.transport.netty.SharedEventLoops}); the next {@link #shared} makes a new one. The
   * future completes when all their threads have ended.
   */
  public static CompletableFuture<Void> shutdownShared(long quietPeriod, long timeout, TimeUnit unit) {
    List<EventLoopGroup> groups;
    synchronized (SHARED) {
      groups = new ArrayList<>(SHARED.values());
      SHARED.clear();
      sharedDefault = null;
    }
    CompletableFuture<?>[] ended = new CompletableFuture<?>[groups.size()];
    for (int i = 0; i < groups.size(); i++) {
      CompletableFuture<Void> f = new CompletableFuture<>();
      groups.get(i)
          .shutdownGracefully(quietPeriod, timeout, unit)
          .addListener(
              x -> {
                if (x.isSuccess()) {
                  f.complete(null);
                } else {
                  f.completeExceptionally(x.cause());
                }
              });
      ended[i] = f;
    }
    return CompletableFuture.allOf(ended);
  }

  /** A new group of {@code threads} loops (0: one per core) of the default engine. */
  public static EventLoopGroup newGroup(int threads, String name) {
    return newDefaultGroup(threads, name);
  }

  /**
   * A new group of {@code threads} loops (0: one per core) of {@code mode} ({@link IoMode#AUTO}:
   * the default engine, falling back to NIO if it fails to start).
   *
   * @throws IllegalStateException when {@code mode} names an engine that cannot run here
   */
  public static EventLoopGroup newGroup(int threads, String name, IoMode mode) {
    if (mode == IoMode.AUTO) {
      return newDefaultGroup(threads, name);
    }
    return create(threads, name, requireAvailable(mode));
  }

  /** The default engine's group; if a native engine loads but its loops fail to start, NIO's. */
  private static EventLoopGroup newDefaultGroup(int threads, String name) {
    IoMode m = defaultMode();
    try {
      return create(threads, name, m);
    } catch (RuntimeException | LinkageError e) {
      if (m == IoMode.NIO) {
        throw e;
      }
      String why = m.label() + " loads but its event loops fail to start (" + IoSelection.describe(e) + ")";
      fallback(Default.CHOICE.named()
          ? new IoSelection.Choice(IoMode.NIO, true, why + ", using nio", null)
          : new IoSelection.Choice(IoMode.NIO, false, m.label() + " fails to start here, using nio", why));
      return create(threads, name, IoMode.NIO);
    }
  }

  private static EventLoopGroup create(int threads, String name, IoMode mode) {
    IoHandlerFactory factory;
    switch (mode) {
      case EPOLL:
        factory = EpollIoHandler.newFactory();
        break;
      case IO_URING:
        factory = IoUringIoHandler.newFactory();
        break;
      case NIO:
        factory = NioIoHandler.newFactory();
        break;
      default:
        throw new IllegalArgumentException("not an engine: " + mode);
    }
    return new ClosingEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
  }

  /**
   * {@code mode} when it can run here.
   *
   * @throws IllegalStateException naming the engine, the reason and what to add
   */
  public static IoMode requireAvailable(IoMode mode) {
    Throwable cause = unavailabilityCause(mode);
    if (cause == null) {
      return mode;
    }
    throw new IllegalStateException(
        mode.label() + " I/O was asked for but cannot run here (" + IoSelection.describe(cause)
            + "). It needs Linux and netty's native jar io.netty:netty-transport-native-"
            + mode.label() + ":<netty version>:linux-x86_64 of the same version as the rest of"
            + " netty; use IoMode.AUTO to fall back to NIO instead",
        cause);
  }

  /**
   * The engine of {@code group}'s loops.
   *
   * @throws IllegalArgumentException when the group is not one of netty's NIO, epoll or io_uring
   *     I/O groups (e.g. a {@code DefaultEventLoopGroup}, or a group of local channels)
   */
  public static IoMode modeOf(EventLoopGroup group) {
    if (group instanceof IoEventLoopGroup) {
      IoEventLoopGroup g = (IoEventLoopGroup) group;
      if (g.isIoType(NioIoHandler.class)) {
        return IoMode.NIO;
      }
      if (isIoType(g, IoMode.EPOLL)) {
        return IoMode.EPOLL;
      }
      if (isIoType(g, IoMode.IO_URING)) {
        return IoMode.IO_URING;
      }
    }
    throw new IllegalArgumentException(
        "the event loop group " + group.getClass().getName() + " runs neither NIO, epoll nor"
            + " io_uring I/O; pass a group made by EventLoops.newGroup or a MultiThreadIoEventLoopGroup"
            + " of NioIoHandler, EpollIoHandler or IoUringIoHandler");
  }

  private static boolean isIoType(IoEventLoopGroup g, IoMode mode) {
    try {
      return g.isIoType(mode == IoMode.EPOLL ? EpollIoHandler.class : IoUringIoHandler.class);
    } catch (LinkageError e) {
      return false; // that engine's classes are absent, so the group cannot be one of it
    }
  }

  /** The TCP server channel of {@code mode}'s groups. */
  public static Class<? extends ServerChannel> serverSocketChannel(IoMode mode) {
    switch (engine(mode)) {
      case EPOLL:
        return EpollServerSocketChannel.class;
      case IO_URING:
        return IoUringServerSocketChannel.class;
      default:
        return NioListener.class; // NioServerSocketChannel that tells when its port is free
    }
  }

  /** The TCP channel of {@code mode}'s groups. */
  public static Class<? extends Channel> socketChannel(IoMode mode) {
    switch (engine(mode)) {
      case EPOLL:
        return EpollSocketChannel.class;
      case IO_URING:
        return IoUringSocketChannel.class;
      default:
        return NioSocketChannel.class;
    }
  }

  /** The UDP channel of {@code mode}'s groups (for the DNS resolver). */
  public static Class<? extends DatagramChannel> datagramChannel(IoMode mode) {
    switch (engine(mode)) {
      case EPOLL:
        return EpollDatagramChannel.class;
      case IO_URING:
        return IoUringDatagramChannel.class;
      default:
        return NioDatagramChannel.class;
    }
  }

  /** The unix domain socket server channel of {@code mode}'s groups. */
  public static Class<? extends ServerChannel> serverDomainSocketChannel(IoMode mode) {
    switch (engine(mode)) {
      case EPOLL:
        return EpollServerDomainSocketChannel.class;
      case IO_URING:
        return IoUringServerDomainSocketChannel.class;
      default:
        return NioServerDomainSocketChannel.class; // the JDK's (Java 16+)
    }
  }

  /** The unix domain socket channel of {@code mode}'s groups. */
  public static Class<? extends Channel> domainSocketChannel(IoMode mode) {
    switch (engine(mode)) {
      case EPOLL:
        return EpollDomainSocketChannel.class;
      case IO_URING:
        return IoUringDomainSocketChannel.class;
      default:
        return NioDomainSocketChannel.class;
    }
  }

  /** The address type {@code mode}'s domain socket channels take for {@code path}. */
  public static SocketAddress domainSocketAddress(IoMode mode, Path path) {
    return engine(mode) == IoMode.NIO
        ? UnixDomainSocketAddress.of(path)
        : new DomainSocketAddress(path.toString());
  }

  private static IoMode engine(IoMode mode) {
    if (mode == IoMode.AUTO) {
      throw new IllegalArgumentException("AUTO is not an engine: resolve it first");
    }
    return mode;
  }

  /** Logs at most one event in its life; the JVM's fallback line is one of these. */
  static final class OnceLog {
    private final AtomicBoolean done = new AtomicBoolean();

    /** Hands {@code event} to {@code sink} the first time only; returns whether it did. */
    <T> boolean log(Consumer<T> sink, T event) {
      if (done.compareAndSet(false, true)) {
        sink.accept(event);
        return true;
      }
      return false;
    }
  }
}
