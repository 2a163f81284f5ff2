package io.sluice.examples.rpc;

import io.sluice.Requester;
import io.sluice.rpc.ServiceRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * {@code ./sluice demo --rpc}: the Greeter service and its generated client on 127.0.0.1. Calls
 * each method once, then for {@code seconds} seconds runs unary calls (64 in flight) and a
 * server-streaming call side by side, printing calls and streamed messages per second, and checks
 * every answer.
 */
public final class RpcDemo {
  private RpcDemo() {}

  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? Integer.parseInt(args[0]) : 10, System.out);
  }

  /**
   * What the demo saw.
   *
   * @param unaryPerSecond unary calls answered in each second of the run
   * @param streamedPerSecond streamed messages received in each second of the run
   * @param unaryCalls unary calls answered in all, the first ones before the timed seconds included
   * @param streamed streamed messages received in all, likewise
   * @param failure the first failed call or wrong answer, or null
   */
  public record Result(
      long[] unaryPerSecond, long[] streamedPerSecond, long unaryCalls, long streamed, Throwable failure) {}

  /**
   * Runs the demo. Each unary reply must be {@code hello demo} and the streamed replies {@code
   * hello stream} with indexes 0, 1, 2, ...; the timed seconds start once both kinds of call have
   * answered (waiting at most 10 s, else this throws).
   */
  public static Result run(int seconds, PrintStream out) throws Exception {
    return run(seconds, out, UnaryOperator.identity(), UnaryOperator.identity());
  }

  /**
   * {@link #run(int, PrintStream)} with hooks around the server's services and the client's
   * connection, as {@link RpcExample.Running#Running(UnaryOperator, UnaryOperator)} takes them
   * ({@code ./sluice demo --rpc} traces its calls through them when the OpenTelemetry variables ask).
   */
  public static Result run(
      int seconds, PrintStream out, UnaryOperator<ServiceRegistry> serve, UnaryOperator<Requester> call)
      throws Exception {
    out.println("sluice demo --rpc: Greeter over TCP on 127.0.0.1 for " + seconds + " s");
    PrintStream quiet = new PrintStream(java.io.OutputStream.nullOutputStream());
    for (String line : RpcExample.run(quiet, new RpcExample.Running(serve, call))) {
      out.println("  " + line);
    }
    long[] unaryPerSecond = new long[seconds];
    long[] streamedPerSecond = new long[seconds];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong calls = new AtomicLong();
    AtomicLong streamed = new AtomicLong();
    try (RpcExample.Running r = new RpcExample.Running(serve, call)) {
      CompletableFuture<Void> firstReply = new CompletableFuture<>();
      CompletableFuture<Void> firstStreamed = new CompletableFuture<>();
      HelloRequest req = HelloRequest.newBuilder().setName("demo").build();
      Disposable unary =
          Flux.<Integer>generate(sink -> sink.next(0))
              .flatMap(i -> r.client.sayHello(req), 64)
              .subscribe(
                  reply -> {
                    if (!reply.getMessage().equals("hello demo")) {
                      fail(failure, "unary reply '" + reply.getMessage() + "', expected 'hello demo'");
                    }
                    calls.incrementAndGet();
                    firstReply.complete(null);
                  },
                  e -> {
                    failure.compareAndSet(null, e);
                    firstReply.completeExceptionally(e);
                    out.println("unary failed: " + e);
                  });
      Disposable stream =
          r.client
              .streamGreetings(HelloRequest.newBuilder().setName("stream").build()) // unbounded
              .limitRate(256)
              .subscribe(
                  reply -> {
                    long expected = streamed.get();
                    if (!reply.getMessage().equals("hello stream") || reply.getIndex() != expected) {
                      fail(
                          failure,
                          "streamed reply '" + reply.getMessage() + "' #" + reply.getIndex()
                              + ", expected 'hello stream' #" + expected);
                    }
                    streamed.incrementAndGet();
                    firstStreamed.complete(null);
                  },
                  e -> {
                    failure.compareAndSet(null, e);
                    firstStreamed.completeExceptionally(e);
                    out.println("stream failed: " + e);
                  });
      try {
        CompletableFuture.allOf(firstReply, firstStreamed).get(10, TimeUnit.SECONDS);
        long lastCalls = calls.get();
        long lastStreamed = streamed.get();
        long start = System.nanoTime();
        for (int s = 0; s < seconds; s++) {
          long next = start + Duration.ofSeconds(s + 1).toNanos();
          long sleep = next - System.nanoTime();
          if (sleep > 0) {
            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
          }
          long c = calls.get();
          long m = streamed.get();
          unaryPerSecond[s] = c - lastCalls;
          streamedPerSecond[s] = m - lastStreamed;
          out.println("unary calls/s: " + (c - lastCalls) + "   streamed messages/s: " + (m - lastStreamed));
          lastCalls = c;
          lastStreamed = m;
        }
      } finally {
        unary.dispose();
        stream.dispose();
      }
      out.println(
          "total: " + LongStream.of(unaryPerSecond).sum() + " unary calls and "
              + LongStream.of(streamedPerSecond).sum() + " streamed messages in " + seconds + " s");
    }
    if (failure.get() != null) {
      out.println("failed: " + failure.get());
    }
    return new Result(unaryPerSecond, streamedPerSecond, calls.get(), streamed.get(), failure.get());
  }

  private static void fail(AtomicReference<Throwable> failure, String message) {
    failure.compareAndSet(null, new IllegalStateException(message));
  }
}
