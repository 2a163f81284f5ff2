package io.sluice.benchmarks.many;

import io.sluice.benchmarks.grpc.GrpcImpl;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.ChildMain;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.sluice.SluiceImpl;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The child processes of the many-connections mode, driven by the orchestrator over stdin/stdout.
 *
 * <p>{@code many-server --impl I --size B}: the harness's own server child ({@link ChildMain},
 * {@code server --interaction rr --size B}): prints {@code LISTENING <port>}, answers every
 * request-response or unary call with {@code B} bytes, and {@code MARK} / {@code REPORT} on stdin
 * with its process CPU time. {@code sluice} and {@code grpc-java} are their harness impls; {@code
 * sluice-rpc} is {@link RpcAnsweringServer}.
 *
 * <p>{@code many-client --impl I --port P --connections C --concurrency N --response-size B
 * --warmup W --seconds S}: opens C connections with N calls in flight in all ({@link
 * ManyOptions#spread}), prints {@code completed calls: n} every second ({@code (warm-up)} during
 * the warm-up; {@code (start-up)} before the first answer), {@code MEASURING} when the measured
 * seconds begin, and at the end one {@code MANY
 * calls=.. failed=.. nanos=.. p50_ns=.. p99_ns=.. p999_ns=.. max_ns=..} line over the measured
 * seconds; then exits. It also exits when its stdin ends (the orchestrator is gone).
 */
public final class ManyChildren {
  private ManyChildren() {}

  /** Whether {@code argv} is one of these children. */
  public static boolean handles(String[] argv) {
    return argv.length > 0 && (argv[0].equals("many-server") || argv[0].equals("many-client"));
  }

  /** Runs the child {@code argv[0]} names. */
  public static int run(String[] argv, PrintStream out) throws Exception {
    if (argv[0].equals("many-server")) {
      Args a = Args.parse(argv, 1, Set.of("impl", "size"), Set.of());
      return ChildMain.run(
          new String[] {"server", "--impl", a.get("impl", ""), "--interaction", "rr",
              "--size", a.get("size", "0")},
          ManyChildren::server);
    }
    return client(argv, out);
  }

  /** The server of {@code impl}: its harness impl, whose rr answers the server's size. */
  static Impl server(String impl) {
    switch (impl) {
      case "sluice":
        return new SluiceImpl();
      case "grpc-java":
        return new GrpcImpl();
      case "sluice-rpc":
        return new RpcAnsweringServer();
      default:
        throw new Args.UsageException(
            "no many-connections server for '" + impl + "'; one of " + ManyOptions.IMPLS);
    }
  }

  private static int client(String[] argv, PrintStream out) throws Exception {
    Args a = Args.parse(argv, 1,
        Set.of("impl", "port", "connections", "concurrency", "response-size", "warmup", "seconds"),
        Set.of());
    ManyClient client = ManyClient.of(a.get("impl", ""));
    int port = a.getInt("port", 0, 1, 65535);
    int connections = a.getInt("connections", 16, 1, ManyOptions.MAX_CONNECTIONS);
    int concurrency = a.getInt("concurrency", 32, 1, ManyOptions.MAX_CONCURRENCY);
    int responseSize = a.getInt("response-size", 16, 0, ManyOptions.MAX_RESPONSE_SIZE);
    int warmup = a.getInt("warmup", 30, 0, 3600);
    int seconds = a.getInt("seconds", 10, 1, 3600);
    exitWhenStdinEnds();
    CallStats calls = new CallStats(responseSize);
    client.start(port, ManyOptions.spread(concurrency, connections), ManyOptions.REQUEST_SIZE, calls);
    awaitFirstAnswer(calls, out);
    Histogram total = null;
    long failedMark = 0;
    long measuredFrom = 0;
    long next = System.nanoTime();
    if (warmup == 0) {
      calls.latencies().getIntervalHistogram(); // whatever ended before now is start-up
      measuredFrom = System.nanoTime();
      failedMark = calls.failedCount();
      println(out, "MEASURING");
    }
    for (int s = 0; s < warmup + seconds; s++) {
      next += TimeUnit.SECONDS.toNanos(1);
      sleepUntil(next);
      Histogram h = calls.latencies().getIntervalHistogram();
      long now = System.nanoTime();
      boolean warm = s < warmup;
      println(out, "completed calls: " + h.getTotalCount() + (warm ? " (warm-up)" : ""));
      if (warm && s == warmup - 1) {
        measuredFrom = now;
        failedMark = calls.failedCount();
        println(out, "MEASURING");
      } else if (!warm) {
        if (total == null) {
          total = h.copy();
        } else {
          total.add(h);
        }
      }
    }
    long nanos = System.nanoTime() - measuredFrom;
    println(out, manyLine(total, calls.failedCount() - failedMark, nanos));
    return 0;
  }

  /**
   * Start-up, neither warm-up nor measured: until the first call is answered (a cold JVM on a
   * loaded machine may answer none in its first seconds), at most 50 s, with a line each second
   * (the orchestrator gives up after 60 s of silence). Without an answer by then, the run goes on
   * and reports what it counts.
   */
  private static void awaitFirstAnswer(CallStats calls, PrintStream out) throws InterruptedException {
    long start = System.nanoTime();
    long nextLine = start + TimeUnit.SECONDS.toNanos(1);
    while (!calls.answered() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(50)) {
      Thread.sleep(10);
      if (System.nanoTime() >= nextLine) {
        println(out, "completed calls: 0 (start-up)");
        nextLine += TimeUnit.SECONDS.toNanos(1);
      }
    }
  }

  /**
   * {@code MANY calls=.. failed=.. nanos=.. p50_ns=.. p99_ns=.. p999_ns=.. max_ns=..}: the calls
   * recorded in {@code total} (null or empty: no percentile, -1), those that failed, and the
   * nanoseconds they were counted over.
   */
  static String manyLine(Histogram total, long failed, long nanos) {
    boolean none = total == null || total.getTotalCount() == 0;
    return String.format(Locale.ROOT,
        "MANY calls=%d failed=%d nanos=%d p50_ns=%d p99_ns=%d p999_ns=%d max_ns=%d",
        none ? 0 : total.getTotalCount(), failed, nanos,
        none ? -1 : total.getValueAtPercentile(50),
        none ? -1 : total.getValueAtPercentile(99),
        none ? -1 : total.getValueAtPercentile(99.9),
        none ? -1 : total.getMaxValue());
  }

  private static void println(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  /** A daemon thread that ends this process when stdin ends: the orchestrator is done or gone. */
  private static void exitWhenStdinEnds() {
    Thread t = new Thread(() -> {
      try {
        InputStream in = System.in;
        byte[] buf = new byte[256];
        while (in.read(buf) >= 0) {
          // commands are not used by this child; only the end of stdin is
        }
      } catch (Exception e) {
        // treated as the end
      }
      System.exit(0);
    }, "bench-stdin");
    t.setDaemon(true);
    t.start();
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    long sleep = deadline - System.nanoTime();
    if (sleep > 0) {
      TimeUnit.NANOSECONDS.sleep(sleep);
    }
  }
}
