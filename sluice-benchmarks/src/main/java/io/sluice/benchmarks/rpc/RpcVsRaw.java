package io.sluice.benchmarks.rpc;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Measures the overhead of Sluice RPC over raw Sluice in one run: a raw reactor server and an RPC
 * server ({@link BenchService} behind {@link RpcResponder}) over TCP on 127.0.0.1, each side on one
 * event loop thread, for request-stream (messages/s) and request-response ({@code inFlight} calls
 * in flight, calls/s) at 8 B and 128 B payloads. Each case alternates raw and RPC {@code rounds}
 * times (warm-up, then one-second samples) and prints the medians and the RPC/raw ratio, so that
 * a loaded machine affects both sides alike. Bounded in time; not a test.
 *
 * <p>Usage: {@code RpcVsRaw [warmupSeconds=2] [seconds=3] [rounds=3] [inFlight=512] [stream|rr|all]
 * [raw|rpc|both]}; the last two select cases and sides, for profiling one of them.
 */
public final class RpcVsRaw {
  private static final int[] SIZES = {8, 128};

  private RpcVsRaw() {}

  public static void main(String[] args) throws Exception {
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 512;
    String only = args.length > 4 ? args[4] : "all"; // stream, rr or all (for profiling)
    String sides = args.length > 5 ? args[5] : "both"; // raw, rpc or both (for profiling)
    EventLoopGroup serverLoop = EventLoops.newGroup(1, "bench-server");
    EventLoopGroup clientLoop = EventLoops.newGroup(1, "bench-client");
    List<ByteBuf> owners = new ArrayList<>();
    ServerTransport.Bound raw = null;
    ServerTransport.Bound rpc = null;
    try {
      raw = serve(serverLoop, rawResponder(owners));
      Responder rpcResponder =
          new RpcResponder(ServiceRegistry.builder().add(new ReactorBenchServer(new BenchService())).build());
      rpc = serve(serverLoop, rpcResponder);
      System.out.printf(
          "RpcVsRaw: warm-up %d s, %d x 1 s samples, %d rounds, %d request-responses in flight%n",
          warmup, seconds, rounds, inFlight);
      List<String> summary = new ArrayList<>();
      for (String kind : new String[] {"stream", "rr"}) {
        if (!only.equals("all") && !only.equals(kind)) {
          continue;
        }
        for (int size : SIZES) {
          List<Double> ratios = new ArrayList<>();
          List<Long> raws = new ArrayList<>();
          List<Long> rpcs = new ArrayList<>();
          for (int r = 0; r < rounds; r++) {
            long a = sides.equals("rpc") ? 0 : measure(raw, clientLoop, kind, size, inFlight, false, warmup, seconds);
            long b = sides.equals("raw") ? 0 : measure(rpc, clientLoop, kind, size, inFlight, true, warmup, seconds);
            raws.add(a);
            rpcs.add(b);
            double ratio = a == 0 ? 0 : (double) b / a;
            ratios.add(ratio);
            System.out.printf(
                Locale.ROOT, "  %-6s %4d B round %d: raw %,10d/s  rpc %,10d/s  rpc/raw %.2f%n",
                kind, size, r + 1, a, b, ratio);
          }
          String line =
              String.format(
                  Locale.ROOT,
                  "%-6s %4d B: raw %,10d/s  rpc %,10d/s  median rpc/raw %.2f (rounds: %s)",
                  kind, size, median(raws), median(rpcs), medianD(ratios), fmt(ratios));
          summary.add(line);
        }
      }
      System.out.println("summary:");
      summary.forEach(s -> System.out.println("  " + s));
    } finally {
      if (raw != null) {
        raw.close();
      }
      if (rpc != null) {
        rpc.close();
      }
      serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
      clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
      owners.forEach(ByteBuf::release);
    }
  }

  private static ServerTransport.Bound serve(EventLoopGroup loop, Responder responder) throws Exception {
    return Connections.serve(
            TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(loop),
            ConnectionOptions.defaults(),
            (setup, requester) -> responder)
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Raw Sluice as sluice-cli's Throughput: the stream sends the requested size (the request's data
   * length) from one shared unreleasable buffer per size; request-response echoes a payload of the
   * request's size the same way.
   */
  private static Responder rawResponder(List<ByteBuf> owners) {
    ByteBuf[] payloads = new ByteBuf[SIZES[SIZES.length - 1] + 1];
    for (int size : SIZES) {
      ByteBuf owner = Unpooled.directBuffer(size).writeZero(size);
      owners.add(owner);
      payloads[size] = Unpooled.unreleasableBuffer(owner);
    }
    return new ResponderAdapter(
        new ReactorResponder() {
          @Override
          public Flux<Message> requestStream(Message request) {
            ByteBuf p = payloads[request.data().readableBytes()];
            request.release();
            return Flux.generate(sink -> sink.next(Message.of(p)));
          }

          @Override
          public Mono<Message> requestResponse(Message request) {
            ByteBuf p = payloads[request.data().readableBytes()];
            request.release();
            return Mono.just(Message.of(p));
          }
        });
  }

  private static long measure(
      ServerTransport.Bound server,
      EventLoopGroup clientLoop,
      String kind,
      int size,
      int inFlight,
      boolean rpc,
      int warmup,
      int seconds)
      throws InterruptedException {
    int port = ((InetSocketAddress) server.address()).getPort();
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(clientLoop))
            .connect()
            .block(Duration.ofSeconds(10));
    AtomicLong received = new AtomicLong();
    Runnable stop;
    ByteBuf rawPayload = Unpooled.unreleasableBuffer(Unpooled.directBuffer(size).writeZero(size));
    Payload rpcPayload = Payload.newBuilder().setData(ByteString.copyFrom(new byte[size])).build();
    ReactorBenchClient client = new ReactorBenchClient(requester);
    if (kind.equals("stream")) {
      Counter<Object> counter = new Counter<>(received);
      if (rpc) {
        client.stream(StreamRequest.newBuilder().setSize(size).build()).subscribe(counter);
      } else {
        requester.requestStream(Message.of(rawPayload)).subscribe(counter);
      }
      stop = counter::dispose;
    } else {
      Pipeline pipeline = new Pipeline(requester, client, rpc, rawPayload, rpcPayload, inFlight, received);
      requester.unwrap().executor().execute(pipeline::start);
      stop = pipeline::stop;
    }
    List<Long> samples = new ArrayList<>();
    try {
      long last = 0;
      long next = System.nanoTime();
      for (int s = 0; s < warmup + seconds; s++) {
        next += 1_000_000_000L;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          TimeUnit.NANOSECONDS.sleep(sleep);
        }
        long now = received.get();
        if (s >= warmup) {
          samples.add(now - last);
        }
        last = now;
      }
    } finally {
      stop.run();
      requester.dispose();
      ((ByteBuf) rawPayload.unwrap()).release();
    }
    Thread.sleep(200); // let the server drain the cancelled calls before the next case
    return median(samples);
  }

  /** Counts a stream's items; asks for everything once. */
  private static final class Counter<T> extends BaseSubscriber<T> {
    private final AtomicLong received;
    private long count;

    Counter(AtomicLong received) {
      this.received = received;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(T item) {
      if (item instanceof Message) {
        ((Message) item).release();
      }
      received.lazySet(++count);
    }
  }

  /** Keeps {@code inFlight} request-responses in flight, all issued on the client's loop. */
  private static final class Pipeline {
    private final ReactorRequester requester;
    private final ReactorBenchClient client;
    private final boolean rpc;
    private final ByteBuf rawPayload;
    private final Payload rpcPayload;
    private final int inFlight;
    private final AtomicLong received;
    private long count;
    private volatile boolean stopped;

    Pipeline(
        ReactorRequester requester,
        ReactorBenchClient client,
        boolean rpc,
        ByteBuf rawPayload,
        Payload rpcPayload,
        int inFlight,
        AtomicLong received) {
      this.requester = requester;
      this.client = client;
      this.rpc = rpc;
      this.rawPayload = rawPayload;
      this.rpcPayload = rpcPayload;
      this.inFlight = inFlight;
      this.received = received;
    }

    void start() {
      for (int i = 0; i < inFlight; i++) {
        send();
      }
    }

    void stop() {
      stopped = true;
    }

    private void send() {
      if (stopped) {
        return;
      }
      if (rpc) {
        client.response(rpcPayload).subscribe(p -> done(), this::failed);
      } else {
        requester
            .requestResponse(Message.of(rawPayload))
            .subscribe(
                m -> {
                  m.release();
                  done();
                },
                this::failed);
      }
    }

    private void done() {
      received.lazySet(++count);
      send();
    }

    private void failed(Throwable e) {
      if (!stopped) {
        System.err.println("request failed: " + e);
      }
    }
  }

  private static long median(List<Long> samples) {
    if (samples.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  private static double medianD(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  private static String fmt(List<Double> values) {
    StringBuilder b = new StringBuilder();
    for (double v : values) {
      b.append(b.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", v));
    }
    return b.toString();
  }
}
