package io.sluice.flavor.tck.rs;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.test.LeakCheckExtension;
import io.sluice.test.UntrackedHeapAllocator;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.tck.TestEnvironment;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A Sluice server (answering a request whose data is n with exactly n messages) and two client
 * connections over the local transport, one of them closed before any test (for the TCK's failed
 * publishers). The server allocates its frames from {@link UntrackedHeapAllocator}, so the
 * messages the TCK's subscribers keep without releasing are plain garbage; the client side (request
 * messages, REQUEST_N, CANCEL) stays pooled and leak-tracked, checked after each class.
 *
 * <p>The TCK runs on testng-engine, where JUnit's auto-registered LeakCheckExtension does not
 * apply: {@link #init()} installs its detector and {@link #assertNoLeaks(Object)} checks it.
 */
final class TckPeers implements AutoCloseable {
  static final long DEFAULT_TIMEOUT_MILLIS = 5_000;
  static final long NO_SIGNALS_TIMEOUT_MILLIS = 100;
  static final long POLL_TIMEOUT_MILLIS = 20;
  /** §3.13 collects the canceled subscriber once after this wait (as in sluice-reactor's Tck). */
  static final long PUBLISHER_REFERENCE_GC_TIMEOUT_MILLIS = 1_000;
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final EventExecutorGroup loops = new DefaultEventExecutorGroup(2);
  private final ServerTransport.Bound bound;
  private final Queue<Requester> serverSides = new ConcurrentLinkedQueue<>();
  final Requester client;
  final Requester closedClient;
  private final io.netty.buffer.ByteBufAllocator clientAlloc;

  TckPeers() {
    this(new ResponderAdapter(new CountingResponder()), true);
  }

  /**
   * @param responder the server's responder
   * @param serverSends whether the messages under test travel from the server (then it allocates
   *     untracked frames) or from the client (then the client does)
   */
  TckPeers(Responder responder, boolean serverSends) {
    String name = "sluice-flavor-tck-" + COUNTER.incrementAndGet();
    clientAlloc = serverSends ? PooledByteBufAllocator.DEFAULT : UntrackedHeapAllocator.INSTANCE;
    bound =
        Connections.serve(
                LocalTransport.server(
                    name,
                    loops,
                    serverSends ? UntrackedHeapAllocator.INSTANCE : PooledByteBufAllocator.DEFAULT),
                ConnectionOptions.defaults(),
                (setup, requester) -> {
                  serverSides.add(requester);
                  return responder;
                })
            .join();
    client = connect(name);
    closedClient = connect(name);
    closedClient.dispose();
    closedClient.onClose().handle((v, e) -> null).join();
  }

  private Requester connect(String name) {
    return Connections.connect(
            LocalTransport.client(name, loops, clientAlloc),
            ConnectionOptions.defaults(),
            ClientSetup.defaults(),
            r -> new Responder() {})
        .orTimeout(10, TimeUnit.SECONDS)
        .join();
  }

  static TestEnvironment env() {
    return new TestEnvironment(
        DEFAULT_TIMEOUT_MILLIS, NO_SIGNALS_TIMEOUT_MILLIS, POLL_TIMEOUT_MILLIS);
  }

  static void init() {
    if (!LeakCheckExtension.isInstalled()) {
      throw new IllegalStateException("LeakCheckExtension could not install its leak detector");
    }
  }

  static void assertNoLeaks(Object testInstance) {
    LeakCheckExtension.assertNoLeaks(testInstance.getClass().getName());
  }

  @Override
  public void close() {
    client.dispose();
    client.onClose().handle((v, e) -> null).join();
    for (Requester r : serverSides) {
      CompletableFuture<Void> f = r.onClose();
      f.handle((v, e) -> null).orTimeout(10, TimeUnit.SECONDS).join();
    }
    bound.close();
    loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10_000);
  }

  /** Answers a request for n with exactly n small messages; drains a channel's further input. */
  private static final class CountingResponder implements ReactorResponder {
    private static long count(Message m) {
      try {
        return Long.parseLong(m.dataUtf8());
      } finally {
        m.release();
      }
    }

    private static Flux<Message> messages(long n) {
      return Flux.range(0, (int) Math.min(n, Integer.MAX_VALUE)).map(i -> Message.utf8("m" + i));
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      long n = count(request);
      return n == 0 ? Mono.empty() : Mono.fromSupplier(() -> Message.utf8("response"));
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      return messages(count(request));
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      rest.subscribe(Message::release, e -> {});
      return messages(count(first));
    }
  }
}
