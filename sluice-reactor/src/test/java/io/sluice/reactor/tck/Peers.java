package io.sluice.reactor.tck;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.UntrackedHeapAllocator;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * A real Sluice server and client over the local transport, each end on its own event loop, plus a
 * second client connection that is already closed (for the TCK's failed publishers).
 *
 * <p>Each end allocates its outbound frames from its own allocator: the end that sends the
 * messages a TCK subscriber will hold gets {@link UntrackedHeapAllocator}, the other end the pooled
 * (leak-tracked) allocator.
 */
final class Peers implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final EventExecutorGroup loops = new DefaultEventExecutorGroup(2);
  private final ServerTransport.Bound bound;
  private final Queue<ReactorRequester> serverSides = new ConcurrentLinkedQueue<>();
  /** An open connection to the server. */
  final ReactorRequester client;
  /** A connection to the same server that was closed before any test ran. */
  final ReactorRequester closedClient;

  Peers(ReactorResponder responder, ByteBufAllocator serverAlloc, ByteBufAllocator clientAlloc) {
    String name = "sluice-tck-" + COUNTER.incrementAndGet();
    this.bound =
        SluiceServer.builder(LocalTransport.server(name, loops, serverAlloc))
            .acceptor(
                (setup, requester) -> {
                  serverSides.add(requester);
                  return responder;
                })
            .bind()
            .block(TIMEOUT);
    this.client = connect(name, clientAlloc);
    this.closedClient = connect(name, clientAlloc);
    closedClient.dispose();
    awaitClosed(closedClient);
  }

  private ReactorRequester connect(String name, ByteBufAllocator alloc) {
    return SluiceClient.builder(LocalTransport.client(name, loops, alloc)).connect().block(TIMEOUT);
  }

  private static void awaitClosed(ReactorRequester r) {
    r.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
  }

  @Override
  public void close() {
    client.dispose();
    awaitClosed(client);
    for (ReactorRequester r : serverSides) {
      awaitClosed(r);
    }
    bound.close();
    loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(TIMEOUT.toMillis());
  }
}
