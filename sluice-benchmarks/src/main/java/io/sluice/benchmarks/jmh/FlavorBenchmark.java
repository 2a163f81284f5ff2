package io.sluice.benchmarks.jmh;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.benchmarks.flavor.FuturesImpl;
import io.sluice.benchmarks.flavor.GrpcStubImpl;
import io.sluice.core.ConnectionOptions;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.futures.FuturesResponder;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.grpcstub.GrpcResponder;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.ResponderAdapter;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * A request-stream through each API flavor on both ends, without a socket: a client and a server
 * engine joined by {@link PipeTransport} on one embedded event loop (as {@link EngineBenchmark}),
 * the server written with the flavor's responder API and the client with its requester API, as the
 * end-to-end impls in {@code io.sluice.benchmarks.flavor} write them (reactor: {@code
 * Flux.generate} + {@code take}, unbounded subscriber; futures: {@code FlowStreams.fromIterator},
 * unbounded {@code Flow.Subscriber}; grpc-stub: a sender looping on {@code isReady()} from its
 * on-ready handler, automatic inbound flow control). The score is per message, both flavors' and
 * both engines' work together, so the difference to {@code reactor} is what a flavor adds on the
 * two ends of a stream; {@code -prof gc} gives the bytes allocated per message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FlavorBenchmark {
  static final int STREAM = 8192;

  @Param({"reactor", "futures", "grpc"})
  String flavor;

  private EnginePair engines;
  private ByteBuf payload;
  private ReactorRequester reactor;
  private FuturesRequester futures;
  private GrpcRequester grpc;
  int received;
  int completions;

  @Setup(Level.Trial)
  public void setUp() {
    payload = Unpooled.unreleasableBuffer(Unpooled.directBuffer(8).writeZero(8));
    engines = new EnginePair(ConnectionOptions.defaults(), responder());
    reactor = new ReactorRequester(engines.client);
    futures = new FuturesRequester(engines.client);
    grpc = new GrpcRequester(engines.client);
  }

  private Responder responder() {
    switch (flavor) {
      case "reactor":
        return new ResponderAdapter(
            new ReactorResponder() {
              @Override
              public Flux<Message> requestStream(Message request) {
                request.release();
                return Flux.<Message>generate(sink -> sink.next(Message.of(payload)))
                    .take(STREAM, true);
              }
            });
      case "futures":
        return FuturesClient.toResponder(
            new FuturesResponder() {
              @Override
              public Flow.Publisher<Message> requestStream(Message request) {
                request.release();
                return FlowStreams.fromIterator(new FuturesImpl.Payloads(payload, STREAM));
              }
            });
      case "grpc":
        return GrpcClient.toResponder(
            new GrpcResponder() {
              @Override
              public void requestStream(Message request, StreamObserver<Message> response) {
                request.release();
                new GrpcStubImpl.Sender((ServerCallStreamObserver<Message>) response, payload, STREAM).start();
              }
            });
      default:
        throw new IllegalArgumentException(flavor);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engines.close();
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public int stream() {
    int target = completions + 1;
    switch (flavor) {
      case "reactor":
        reactor.requestStream(Message.of(payload)).subscribe(new ReactorCount());
        break;
      case "futures":
        futures.requestStream(Message.of(payload)).subscribe(new FlowCount());
        break;
      default:
        grpc.requestStream(Message.of(payload), new GrpcCount());
        break;
    }
    engines.runUntil(() -> completions >= target);
    return received;
  }

  /**
   * CPU per message without JMH, for a shared machine where wall-clock scores swing with other
   * load: {@code FlavorBenchmark <flavor> [rounds] [streams per round]} runs rounds of streams on
   * this thread and prints, per round after the first third (warm-up), the thread's CPU time per
   * message, then their median. A thread's CPU time does not count the time other processes hold
   * the core, so alternating runs of two builds compare better than their scores do.
   */
  public static void main(String[] args) {
    FlavorBenchmark b = new FlavorBenchmark();
    b.flavor = args.length > 0 ? args[0] : "reactor";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 120;
    int streams = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
    double[] perMessage = new double[rounds - rounds / 3];
    b.setUp();
    try {
      for (int r = 0; r < rounds; r++) {
        long start = cpu.getCurrentThreadCpuTime();
        for (int i = 0; i < streams; i++) {
          b.stream();
        }
        double ns = (cpu.getCurrentThreadCpuTime() - start) / ((double) streams * STREAM);
        if (r >= rounds / 3) {
          perMessage[r - rounds / 3] = ns;
        }
      }
    } finally {
      b.tearDown();
    }
    java.util.Arrays.sort(perMessage);
    System.out.printf(
        "flavor=%s cpu_ns_per_msg median=%.1f min=%.1f rounds=%d%n",
        b.flavor, perMessage[perMessage.length / 2], perMessage[0], perMessage.length);
  }

  private final class ReactorCount extends BaseSubscriber<Message> {
    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(Message m) {
      m.release();
      received++;
    }

    @Override
    protected void hookOnComplete() {
      completions++;
    }
  }

  private final class FlowCount implements Flow.Subscriber<Message> {
    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Message m) {
      m.release();
      received++;
    }

    @Override
    public void onError(Throwable t) {
      throw new IllegalStateException(t);
    }

    @Override
    public void onComplete() {
      completions++;
    }
  }

  private final class GrpcCount implements ClientResponseObserver<Message, Message> {
    @Override
    public void beforeStart(ClientCallStreamObserver<Message> call) {}

    @Override
    public void onNext(Message m) {
      m.release();
      received++;
    }

    @Override
    public void onError(Throwable t) {
      throw new IllegalStateException(t);
    }

    @Override
    public void onCompleted() {
      completions++;
    }
  }
}
