package io.sluice.cli;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.internal.SluiceConnection;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.PrintStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code ./sluice soak --minutes M}: one server and a few clients in this JVM over TCP on
 * 127.0.0.1, running a mix of every interaction with cancellations and errors for M minutes, and
 * printing heap (now and after a GC), direct memory and the server's live streams every 10 s. A
 * leak shows as a heap-after-GC, direct-memory or stream count that keeps growing. Not part of the
 * test suite.
 */
final class Soak {
  private static final int CLIENTS = 4;
  private static final int IN_FLIGHT = 32;

  private final AtomicLong ops = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong cancels = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final Set<SluiceConnection> serverConnections = ConcurrentHashMap.newKeySet();

  int run(int minutes, PrintStream out) throws InterruptedException {
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .acceptor(
                (setup, requester) -> {
                  if (requester.unwrap() instanceof SluiceConnection) {
                    SluiceConnection c = (SluiceConnection) requester.unwrap();
                    serverConnections.add(c);
                    c.onClose().whenComplete((v, e) -> serverConnections.remove(c));
                  }
                  return new SoakResponder();
                })
            .bind()
            .block(Duration.ofSeconds(10));
    int port = ((InetSocketAddress) server.address()).getPort();
    List<ReactorRequester> clients = new ArrayList<>();
    List<Disposable> loads = new ArrayList<>();
    out.println(
        "sluice soak: " + CLIENTS + " clients x " + IN_FLIGHT + " in flight for " + minutes
            + " min on 127.0.0.1:" + port + " (-Xmx " + (Runtime.getRuntime().maxMemory() >> 20)
            + " MiB)");
    try {
      for (int i = 0; i < CLIENTS; i++) {
        ReactorRequester r =
            SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port))
                .connect()
                .block(Duration.ofSeconds(10));
        clients.add(r);
        loads.add(
            Flux.range(0, Integer.MAX_VALUE)
                .flatMap(n -> oneOp(r), IN_FLIGHT)
                .subscribe(v -> {}, e -> failures.incrementAndGet()));
      }
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
      long start = System.nanoTime();
      out.println("time_s ops errors cancels heap_mib heap_after_gc_mib direct_mib server_conns server_streams");
      while (System.nanoTime() < end) {
        Thread.sleep(10_000);
        long heap = heapUsed();
        System.gc();
        long afterGc = heapUsed();
        out.printf(
            "%6d %d %d %d %.1f %.1f %.1f %d %d%n",
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
            ops.get(),
            errors.get(),
            cancels.get(),
            heap / 1048576.0,
            afterGc / 1048576.0,
            directUsed() / 1048576.0,
            serverConnections.size(),
            serverStreams());
      }
    } finally {
      loads.forEach(Disposable::dispose);
      clients.forEach(ReactorRequester::dispose);
      server.close();
    }
    out.println("done: " + ops.get() + " operations, " + failures.get() + " client connections failed");
    return failures.get() == 0 ? 0 : 1;
  }

  /** One random interaction; completes (never fails) when it is over. */
  private Mono<Void> oneOp(ReactorRequester r) {
    ByteBufAllocator alloc = r.alloc();
    int kind = ThreadLocalRandom.current().nextInt(100);
    Mono<?> op;
    if (kind < 30) {
      op = r.requestResponse(Message.utf8(alloc, "hello")).doOnNext(Message::release);
    } else if (kind < 35) {
      op = r.requestResponse(Message.utf8(alloc, "error")).doOnNext(Message::release);
    } else if (kind < 55) {
      op = r.requestStream(Message.utf8(alloc, "50")).doOnNext(Message::release).then();
    } else if (kind < 70) {
      // Cancels after a few items.
      op =
          r.requestStream(Message.utf8(alloc, "1000000"))
              .doOnCancel(cancels::incrementAndGet)
              .take(1 + kind % 7)
              .doOnNext(Message::release)
              .then();
    } else if (kind < 75) {
      op = r.requestStream(Message.utf8(alloc, "error")).doOnNext(Message::release).then();
    } else if (kind < 88) {
      op =
          r.requestChannel(Flux.range(0, 10).map(i -> Message.utf8(alloc, "c" + i)))
              .doOnNext(Message::release)
              .then();
    } else if (kind < 95) {
      // Cancels the channel midway.
      op =
          r.requestChannel(Flux.range(0, 1000).map(i -> Message.utf8(alloc, "c" + i)))
              .doOnCancel(cancels::incrementAndGet)
              .take(3)
              .doOnNext(Message::release)
              .then();
    } else if (kind < 99) {
      op = r.fireAndForget(Message.utf8(alloc, "fnf"));
    } else {
      op = r.metadataPush(Message.utf8(alloc, "md", ""));
    }
    return op.then()
        .doOnSuccess(v -> ops.incrementAndGet())
        .onErrorResume(
            e -> {
              ops.incrementAndGet();
              errors.incrementAndGet();
              return Mono.empty();
            });
  }

  private int serverStreams() {
    int n = 0;
    for (SluiceConnection c : serverConnections) {
      try {
        n += ((EventExecutor) c.executor()).submit(c::activeStreams).get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        // closed meanwhile
      }
    }
    return n;
  }

  private static long heapUsed() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  /** netty's own counter (buffers without a cleaner) plus the JDK's direct buffer pool. */
  private static long directUsed() {
    long netty = Math.max(0, PlatformDependent.usedDirectMemory());
    long jdk = 0;
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        jdk = b.getMemoryUsed();
      }
    }
    return netty + jdk;
  }

  /**
   * Request-response echoes ({@code error} fails); request-stream sends N items ({@code error}:
   * three items, then an error); request-channel echoes each message.
   */
  private static final class SoakResponder implements ReactorResponder {
    @Override
    public Mono<Message> requestResponse(Message request) {
      String d = request.dataUtf8();
      request.release();
      if (d.equals("error")) {
        return Mono.error(new ApplicationErrorException("requested error"));
      }
      return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + d));
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      String d = request.dataUtf8();
      request.release();
      if (d.equals("error")) {
        return Flux.range(0, 3)
            .map(i -> Message.utf8(ByteBufAllocator.DEFAULT, "item " + i))
            .concatWith(Mono.error(new ApplicationErrorException("requested error")));
      }
      return Flux.range(0, Integer.parseInt(d)).map(i -> Message.utf8(ByteBufAllocator.DEFAULT, "item " + i));
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      return Flux.concat(Mono.just(first), rest);
    }
  }
}
