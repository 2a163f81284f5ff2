package io.sluice.transport.local;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

/**
 * An in-JVM transport: frames cross between two event loops as buffers, one buffer per frame, with
 * no length prefix and no copy. For tests, benchmarks of the engine alone, and embedding.
 *
 * <p>Servers are found by name in a JVM-wide registry. Each connection's ends run on executors
 * taken in turn from the {@code executors} group given to {@link #server(String,
 * EventExecutorGroup, ByteBufAllocator)} and {@link #client(String, EventExecutorGroup,
 * ByteBufAllocator)} (a shared two-thread group by default).
 *
 * <p><b>Threads.</b> The factory methods may be called from any thread; a name is bound by one
 * server at a time (binding a taken name fails). <b>Buffers.</b> A written frame buffer (ownership
 * passes on write) crosses to the other end as is, without a copy; that end lends it to its {@link
 * io.sluice.transport.FrameReceiver} for the call, then releases it.
 */
public final class LocalTransport {
  private LocalTransport() {}

  private static final ConcurrentMap<String, LocalServer> SERVERS = new ConcurrentHashMap<>();

  private static final class DefaultGroup {
    static final EventExecutorGroup INSTANCE = new DefaultEventExecutorGroup(2);
  }

  /** A server transport registered under {@code name} when bound. */
  public static ServerTransport server(String name) {
    return server(name, DefaultGroup.INSTANCE, PooledByteBufAllocator.DEFAULT);
  }

  public static ServerTransport server(
      String name, EventExecutorGroup executors, ByteBufAllocator alloc) {
    Objects.requireNonNull(name, "name");
    return onConnection -> {
      LocalServer server = new LocalServer(name, executors, alloc, onConnection);
      if (SERVERS.putIfAbsent(name, server) != null) {
        return CompletableFuture.failedFuture(
            new IllegalStateException("a local server named '" + name + "' is already bound"));
      }
      return CompletableFuture.completedFuture(server);
    };
  }

  /** A client transport connecting to the local server named {@code name}. */
  public static ClientTransport client(String name) {
    return client(name, DefaultGroup.INSTANCE, PooledByteBufAllocator.DEFAULT);
  }

  public static ClientTransport client(
      String name, EventExecutorGroup executors, ByteBufAllocator alloc) {
    Objects.requireNonNull(name, "name");
    return () -> {
      LocalServer server = SERVERS.get(name);
      if (server == null) {
        return CompletableFuture.failedFuture(
            new java.net.ConnectException("no local server named '" + name + "'"));
      }
      EventExecutor clientLoop = executors.next();
      EventExecutor serverLoop = server.executors.next();
      LocalAddress clientAddress = new LocalAddress(name + "-client");
      LocalDuplexTransport clientSide =
          new LocalDuplexTransport(clientLoop, alloc, clientAddress, server.address);
      LocalDuplexTransport serverSide =
          new LocalDuplexTransport(serverLoop, server.alloc, server.address, clientAddress);
      LocalDuplexTransport.pair(clientSide, serverSide);
      CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
      serverLoop.execute(
          () -> {
            try {
              server.onConnection.accept(serverSide);
              result.complete(clientSide);
            } catch (Throwable t) {
              serverSide.close();
              result.completeExceptionally(t);
            }
          });
      return result;
    };
  }

  /** The address of one end of a local connection. */
  public static final class LocalAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;
    private final String name;

    LocalAddress(String name) {
      this.name = name;
    }

    @Override
    public String toString() {
      return "local:" + name;
    }
  }

  private static final class LocalServer implements ServerTransport.Bound {
    final String name;
    final EventExecutorGroup executors;
    final ByteBufAllocator alloc;
    final Consumer<DuplexTransport> onConnection;
    final LocalAddress address;
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    LocalServer(
        String name,
        EventExecutorGroup executors,
        ByteBufAllocator alloc,
        Consumer<DuplexTransport> onConnection) {
      this.name = name;
      this.executors = executors;
      this.alloc = alloc;
      this.onConnection = onConnection;
      this.address = new LocalAddress(name);
    }

    @Override
    public SocketAddress address() {
      return address;
    }

    @Override
    public void close() {
      SERVERS.remove(name, this);
      closed.complete(null);
    }

    @Override
    public CompletableFuture<Void> onClose() {
      return closed;
    }
  }
}
