package io.sluice.benchmarks.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.SluiceConnection;
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

/**
 * The protocol engine end to end without a socket: a client and a server {@link SluiceConnection}
 * joined by {@link PipeTransport} on one embedded event loop, so one thread runs both sides. Each
 * score is per message (both engines' work together); with {@code -prof gc}, {@code
 * gc.alloc.rate.norm} is the bytes both engines allocate per message.
 *
 * <ul>
 *   <li>{@code stream}: one request-stream of 1024 messages (payload frame write + decode).
 *   <li>{@code requestResponse}: 256 request-responses in flight (stream setup and teardown).
 *   <li>{@code reassembly}: one 16 KiB request-response fragmented at a 1 KiB MTU (fragmenting and
 *       reassembling, 16 fragments).
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EngineBenchmark {
  static final int STREAM = 1024;
  static final int WINDOW = 256;

  @Param({"8", "140"})
  int size;

  private EnginePair engines;
  private SluiceConnection client;
  private ByteBuf payload;
  private ByteBuf large;
  private final Counting counting = new Counting();

  /** Counts messages and completions on the client. */
  static final class Counting implements StreamListener {
    int messages;
    int completions;

    @Override
    public void onNext(Message message) {
      message.release();
      messages++;
    }

    @Override
    public void onComplete() {
      completions++;
    }

    @Override
    public void onError(Throwable cause) {
      throw new IllegalStateException(cause);
    }
  }

  /** Serves request-stream (1024 messages) and request-response (answers with the payload). */
  final class Server implements Responder {
    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      request.release();
      response.nextAndComplete(Message.of(payload));
      return Producer.IDLE;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      request.release();
      return new Producer(stream, payload, STREAM);
    }
  }

  static final class Producer implements StreamListener {
    static final StreamListener IDLE = new Producer(null, null, 0);
    private final StreamHandle stream;
    private final ByteBuf payload;
    private int remaining;

    Producer(StreamHandle stream, ByteBuf payload, int count) {
      this.stream = stream;
      this.payload = payload;
      this.remaining = count;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n && remaining > 0; i++) {
        if (--remaining == 0) {
          stream.nextAndComplete(Message.of(payload));
        } else {
          stream.next(Message.of(payload));
        }
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      remaining = 0;
    }

    @Override
    public void onCancel() {
      remaining = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    payload = Unpooled.unreleasableBuffer(Unpooled.directBuffer(size).writeZero(size));
    large = Unpooled.unreleasableBuffer(Unpooled.directBuffer(16 * 1024).writeZero(16 * 1024));
    ConnectionOptions options = ConnectionOptions.builder().mtu(1024).build();
    engines = new EnginePair(options, new Server());
    client = engines.client;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engines.close();
  }

  private void runUntil(int completions) {
    engines.runUntil(() -> counting.completions >= completions);
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public int stream() {
    int target = counting.completions + 1;
    client.requestStream(Message.of(payload), Long.MAX_VALUE, counting);
    runUntil(target);
    return counting.messages;
  }

  @Benchmark
  @OperationsPerInvocation(WINDOW)
  public int requestResponse() {
    int target = counting.completions + WINDOW;
    for (int i = 0; i < WINDOW; i++) {
      client.requestResponse(Message.of(payload), counting);
    }
    runUntil(target);
    return counting.messages;
  }

  @Benchmark
  public int reassembly() {
    int target = counting.completions + 1;
    client.requestResponse(Message.of(large), counting);
    runUntil(target);
    return counting.messages;
  }
}
