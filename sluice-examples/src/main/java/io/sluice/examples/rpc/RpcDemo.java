package io.sluice.examples.rpc;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * {@code ./sluice demo --rpc}: the Greeter service and its generated client on 127.0.0.1. Calls
 * each method once, then for {@code seconds} seconds runs unary calls (64 in flight) and a
 * server-streaming call side by side, printing calls and streamed messages per second.
 */
public final class RpcDemo {
  private RpcDemo() {}

  public static void main(String[] args) throws Exception {
    run(args.length > 0 ? Integer.parseInt(args[0]) : 10, System.out);
  }

  /** Runs the demo; returns the per-second unary call counts. */
  public static long[] run(int seconds, PrintStream out) throws Exception {
    out.println("sluice demo --rpc: Greeter over TCP on 127.0.0.1 for " + seconds + " s");
    for (String line : RpcExample.run(new PrintStream(java.io.OutputStream.nullOutputStream()))) {
      out.println("  " + line);
    }
    long[] perSecond = new long[seconds];
    try (RpcExample.Running r = new RpcExample.Running()) {
      AtomicLong calls = new AtomicLong();
      AtomicLong streamed = new AtomicLong();
      HelloRequest req = HelloRequest.newBuilder().setName("demo").build();
      Disposable unary =
          Flux.<Integer>generate(sink -> sink.next(0))
              .flatMap(i -> r.client.sayHello(req), 64)
              .subscribe(reply -> calls.incrementAndGet(), e -> out.println("unary failed: " + e));
      Disposable stream =
          r.client
              .streamGreetings(HelloRequest.newBuilder().setName("stream").build()) // unbounded
              .limitRate(256)
              .subscribe(reply -> streamed.incrementAndGet(), e -> out.println("stream failed: " + e));
      long lastCalls = 0;
      long lastStreamed = 0;
      long start = System.nanoTime();
      try {
        for (int s = 0; s < seconds; s++) {
          long next = start + Duration.ofSeconds(s + 1).toNanos();
          long sleep = next - System.nanoTime();
          if (sleep > 0) {
            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
          }
          long c = calls.get();
          long m = streamed.get();
          perSecond[s] = c - lastCalls;
          out.println("unary calls/s: " + (c - lastCalls) + "   streamed messages/s: " + (m - lastStreamed));
          lastCalls = c;
          lastStreamed = m;
        }
      } finally {
        unary.dispose();
        stream.dispose();
      }
      out.println(
          "total: " + lastCalls + " unary calls and " + lastStreamed + " streamed messages in " + seconds + " s");
    }
    return perSecond;
  }

}
