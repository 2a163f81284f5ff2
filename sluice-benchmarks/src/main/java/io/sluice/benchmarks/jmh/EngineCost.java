package io.sluice.benchmarks.jmh;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.Arrays;

/**
 * {@link EngineBenchmark}'s work measured by the thread's own CPU time and allocated bytes instead
 * of wall-clock throughput, on a {@link FastThreadLocalThread} as an event loop is. Time the thread
 * spends off the CPU (another process on the core) does not count, so on a shared machine the CPU
 * per message is far steadier than messages per second; bytes per message are exact. Compare two
 * builds by alternating runs of each (see docs/benchmarks.md, "The engine split").
 *
 * <pre>{@code
 * java -cp "$cp" io.sluice.benchmarks.jmh.EngineCost stream 8 40   # rr|stream, size, rounds
 * }</pre>
 *
 * <p>Prints {@code COST bench= size= cpu_ns_min= cpu_ns_p25= cpu_ns_median= bytes_per_msg=}: both
 * engines' work per message (per call for rr), after 4000 warm-up operations; each round is 200
 * operations (of 256 calls or 1024 streamed messages).
 */
public final class EngineCost {
  private EngineCost() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 3 || !(args[0].equals("rr") || args[0].equals("stream"))) {
      System.err.println("usage: EngineCost rr|stream SIZE ROUNDS");
      System.exit(2);
    }
    boolean rr = args[0].equals("rr");
    int size = Integer.parseInt(args[1]);
    int rounds = Math.max(1, Math.min(1000, Integer.parseInt(args[2])));
    Thread t = new FastThreadLocalThread(() -> run(rr, size, rounds), "engine-cost");
    t.start();
    t.join();
  }

  private static void run(boolean rr, int size, int rounds) {
    try {
      measure(rr, size, rounds);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void measure(boolean rr, int size, int rounds) throws Exception {
    EngineBenchmark b = new EngineBenchmark();
    b.size = size;
    b.setUp();
    try {
      int perOp = rr ? EngineBenchmark.WINDOW : EngineBenchmark.STREAM;
      ThreadCost.Op op = rr ? b::requestResponse : b::stream;
      ThreadCost.round(op, 4000, perOp); // warm-up
      double[] cpu = new double[rounds];
      double bytes = 0;
      for (int r = 0; r < rounds; r++) {
        ThreadCost c = ThreadCost.round(op, 200, perOp);
        cpu[r] = c.cpuNanos;
        bytes = c.bytes;
      }
      Arrays.sort(cpu);
      System.out.printf(
          "COST bench=%s size=%d cpu_ns_min=%.1f cpu_ns_p25=%.1f cpu_ns_median=%.1f"
              + " bytes_per_msg=%.1f%n",
          rr ? "rr" : "stream", size, cpu[0], cpu[rounds / 4], cpu[rounds / 2], bytes);
    } finally {
      b.tearDown();
    }
  }
}
