package io.sluice.benchmarks.jmh;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.Arrays;

/**
 * {@link RpcBenchmark}'s calls measured by the thread's own CPU time and allocated bytes instead of
 * wall-clock time, on a {@link FastThreadLocalThread} as an event loop is (JMH's threads are not,
 * so thread-local caches and netty's recyclers behave differently there). On a busy machine the
 * bytes per message are exact and the minimum CPU per message is far steadier than throughput;
 * compare two builds by alternating runs of each.
 *
 * <pre>{@code
 * java -cp "$cp" io.sluice.benchmarks.jmh.RpcCost rpc stream 8 15   # layer, rr|stream, size, rounds
 * }</pre>
 *
 * <p>Prints {@code COST layer= bench= size= cpu_ns_min= cpu_ns_median= bytes_per_msg=}: both
 * engines' work per message (per call for rr), after 3000 warm-up operations; each round is 400
 * operations (of 256 calls or 1024 streamed messages).
 */
public final class RpcCost {
  private RpcCost() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 4) {
      System.err.println("usage: RpcCost raw|reactor|rpc rr|stream SIZE ROUNDS");
      System.exit(2);
    }
    String layer = args[0];
    boolean rr = args[1].equals("rr");
    int size = Integer.parseInt(args[2]);
    int rounds = Math.max(1, Math.min(1000, Integer.parseInt(args[3])));
    Thread t = new FastThreadLocalThread(() -> run(layer, rr, size, rounds), "rpc-cost");
    t.start();
    t.join();
  }

  private static void run(String layer, boolean rr, int size, int rounds) {
    try {
      measure(layer, rr, size, rounds);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void measure(String layer, boolean rr, int size, int rounds) throws Exception {
    RpcBenchmark b = new RpcBenchmark();
    b.layer = layer;
    b.size = size;
    b.setUp();
    try {
      int perOp = rr ? RpcBenchmark.WINDOW : RpcBenchmark.STREAM;
      ThreadCost.Op op = rr ? b::requestResponse : b::stream;
      ThreadCost.round(op, 3000, perOp); // warm-up
      long[] cpu = new long[rounds];
      double bytes = 0;
      for (int r = 0; r < rounds; r++) {
        ThreadCost c = ThreadCost.round(op, 400, perOp);
        cpu[r] = (long) c.cpuNanos;
        bytes = c.bytes;
      }
      Arrays.sort(cpu);
      System.out.printf(
          "COST layer=%s bench=%s size=%d cpu_ns_min=%d cpu_ns_median=%d bytes_per_msg=%.1f%n",
          layer, rr ? "rr" : "stream", size, cpu[0], cpu[rounds / 2], bytes);
    } finally {
      b.tearDown();
    }
  }
}
