package io.sluice.benchmarks.jmh;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.benchmarks.rpc.BenchService;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.benchmarks.rpc.ReactorBenchClient;
import io.sluice.benchmarks.rpc.ReactorBenchServer;
import io.sluice.benchmarks.rpc.StreamRequest;
import io.sluice.internal.SluiceConnection;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What each layer above the core costs per call, without a socket: a client and a server engine
 * joined by {@link PipeTransport} on one embedded event loop (as in {@link EngineBenchmark}), served
 * and called three ways with the same semantics — raw core SPI, the reactor flavor, and protobuf RPC
 * (the generated {@code ReactorBenchClient} against {@code RpcResponder} serving {@code
 * BenchService}). Scores are per message, both sides' work together; {@code -prof gc} gives the
 * bytes both sides allocate per message. On a shared machine these are steadier than the
 * end-to-end runs, which also include sockets and scheduling.
 *
 * <pre>{@code ./sluice jmh -prof gc RpcBenchmark}</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RpcBenchmark {
  static final int STREAM = 1024;
  static final int WINDOW = 256;

  @Param({"raw", "reactor", "rpc"})
  String layer;

  @Param({"8"})
  int size;

  private EnginePair engines;
  private SluiceConnection client;
  private ByteBuf payload;
  private Payload proto;
  private ReactorRequester reactor;
  private ReactorBenchClient rpc;
  private final EngineBenchmark.Counting counting = new EngineBenchmark.Counting();
  private int completions;
  private int messages;

  @Setup(Level.Trial)
  public void setUp() {
    payload = Unpooled.unreleasableBuffer(Unpooled.directBuffer(size).writeZero(size));
    proto = Payload.newBuilder().setData(ByteString.copyFrom(new byte[size])).build();
    Responder responder;
    switch (layer) {
      case "raw":
        responder = new RawServer();
        break;
      case "reactor":
        responder = new ResponderAdapter(new ReactorServer());
        break;
      case "rpc":
        responder =
            new RpcResponder(
                ServiceRegistry.builder().add(new ReactorBenchServer(new BenchService())).build());
        break;
      default:
        throw new IllegalArgumentException(layer);
    }
    engines = new EnginePair(ConnectionOptions.defaults(), responder);
    client = engines.client;
    reactor = new ReactorRequester(client);
    rpc = new ReactorBenchClient(reactor);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engines.close();
  }

  /** Raw core SPI: answers with the payload; streams {@link #STREAM} messages. */
  final class RawServer implements Responder {
    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      request.release();
      response.nextAndComplete(Message.of(payload));
      return EngineBenchmark.Producer.IDLE;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      request.release();
      return new EngineBenchmark.Producer(stream, payload, STREAM);
    }
  }

  /** The reactor flavor, as the end-to-end sluice-reactor impl serves. */
  final class ReactorServer implements ReactorResponder {
    @Override
    public Mono<Message> requestResponse(Message request) {
      request.release();
      return Mono.just(Message.of(payload));
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      request.release();
      return Flux.<Message>generate(sink -> sink.next(Message.of(payload))).take(STREAM, true);
    }
  }

  private void runUntil(int target) {
    engines.runUntil(() -> completions + counting.completions >= target);
  }

  private final Runnable completed = () -> completions++;

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int requestResponse() {
    int target = completions + counting.completions + WINDOW;
    for (int i = 0; i < WINDOW; i++) {
      switch (layer) {
        case "raw":
          client.requestResponse(Message.of(payload), counting);
          break;
        case "reactor":
          reactor.requestResponse(Message.of(payload))
              .subscribe(m -> {
                m.release();
                messages++;
              }, e -> { throw new IllegalStateException(e); }, completed);
          break;
        default:
          rpc.response(proto).subscribe(p -> messages++, e -> { throw new IllegalStateException(e); }, completed);
      }
    }
    runUntil(target);
    return messages + counting.messages;
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public int stream() {
    int target = completions + counting.completions + 1;
    switch (layer) {
      case "raw":
        client.requestStream(Message.of(payload), Long.MAX_VALUE, counting);
        break;
      case "reactor":
        reactor.requestStream(Message.of(payload))
            .subscribe(m -> {
              m.release();
              messages++;
            }, e -> { throw new IllegalStateException(e); }, completed);
        break;
      default:
        rpc.stream(StreamRequest.newBuilder().setCount(STREAM).setSize(size).build())
            .subscribe(p -> messages++, e -> { throw new IllegalStateException(e); }, completed);
    }
    runUntil(target);
    return messages + counting.messages;
  }
}
