package io.sluice.benchmarks.harness;

import com.sun.management.ThreadMXBean;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The two child processes of a benchmark run, driven by the orchestrator over stdin/stdout.
 *
 * <p>{@code server --impl I --interaction X --size N}: prints {@code LISTENING <port>}; then reads
 * commands from stdin: {@code MARK} notes the bytes allocated so far by the server's event-loop
 * threads and the CPU time the process has used, {@code REPORT} prints {@code ALLOC <bytes since
 * MARK> CPU <process CPU nanoseconds since MARK>} (a client whose impl times its load adds {@code
 * P50_NS <ns> P99_NS <ns> FAILED <calls>}), {@code COUNT} prints {@code COUNT <messages counted
 * so far> <System.nanoTime()>} (for {@code fnf}; 0 otherwise); end of stdin exits. For {@code fnf}
 * it prints {@code received messages: N} every second from the first message on.
 *
 * <p>{@code client --impl I --interaction X --size N --port P --window W --seconds T}: prints
 * {@code received messages: N} every second for T seconds (or until its stdin ends), then exits; it
 * answers {@code MARK}, {@code REPORT} and {@code COUNT} on stdin the same way (its {@code ALLOC}
 * is 0; its {@code COUNT} is the messages it received). The orchestrator's interleaved mode stops and continues whole
 * processes with SIGSTOP / SIGCONT and reads rates from {@code COUNT} alone. With {@code --latency
 * --concurrency C --warmup S} it measures latency instead: it prints {@code MEASURING} when the
 * measured intervals begin (the warm-up starts with the first completed operation) and ends with
 * one {@code LATENCY} line, which also gives {@code cpu_ns_per_op}: the process's CPU time over the
 * measured intervals per operation completed in them; its {@code COUNT} is then the operations
 * completed so far (what the interleaved mode's latency pairs count), and end of stdin exits.
 *
 * <p>{@code --tick-ms T} (both children, 1..1000, default 1000) makes each counting interval T ms
 * instead of a second: the {@code received messages} and {@code completed operations} lines come
 * every T ms, and {@code --seconds} and {@code --warmup} count intervals. Only the orchestrator's
 * smoke runs ({@code --smoke}) shorten it, to end a run soon after its first counted message; a
 * {@code LATENCY} line's {@code ops_per_sec} stays per second.
 */
public final class ChildMain {
  private ChildMain() {}

  /** Runs {@code server} or {@code client} with the implementation {@code impls} gives a name. */
  public static int run(String[] argv, Function<String, Impl> impls) throws Exception {
    PrintStream out = System.out;
    if (argv[0].equals("server")) {
      Args a = Args.parse(argv, 1, Set.of("impl", "interaction", "size", "tick-ms"), Set.of());
      Impl impl = impls.apply(a.get("impl", ""));
      String interaction = a.get("interaction", "stream");
      int size = a.getInt("size", 8, 0, 1 << 20);
      long tickNanos = tickNanos(a);
      Counter fnf = new Counter();
      int port = impl.serve(interaction, size, fnf);
      out.println("LISTENING " + port);
      out.flush();
      if (interaction.equals("fnf")) {
        Thread ticker = new Thread(() -> tick(fnf, tickNanos, out), "bench-ticker");
        ticker.setDaemon(true);
        ticker.start();
      }
      serveControl(impl.serverLoopPrefix(), fnf::get, null, out);
      return 0;
    }
    Args a =
        Args.parse(
            argv,
            1,
            Set.of("impl", "interaction", "size", "port", "window", "seconds", "warmup", "concurrency",
                "tick-ms"),
            Set.of("latency"));
    Impl impl = impls.apply(a.get("impl", ""));
    String interaction = a.get("interaction", "stream");
    int size = a.getInt("size", 8, 0, 1 << 20);
    int port = a.getInt("port", 0, 1, 65535);
    int seconds = a.getInt("seconds", 10, 1, 86400);
    long tickNanos = tickNanos(a);
    if (a.flag("latency")) {
      latency(impl, port, interaction, size, a.getInt("concurrency", 1, 1, 4096),
          a.getInt("warmup", 10, 0, 86400), seconds, tickNanos, out);
      return 0;
    }
    Counter received = new Counter();
    control(received::get, impl, out);
    impl.load(port, interaction, size, a.getInt("window", 512, 1, 1 << 20), received);
    long last = 0;
    long next = System.nanoTime();
    for (int s = 0; s < seconds; s++) {
      next += tickNanos;
      sleepUntil(next);
      long now = received.get();
      synchronized (out) {
        out.println("received messages: " + (now - last));
        out.flush();
      }
      last = now;
    }
    return 0;
  }

  /**
   * Serves MARK / REPORT / COUNT on stdin ({@code counted}: what COUNT reports) from a thread of
   * its own, and exits the process when stdin ends: the orchestrator is done with it, or gone
   * (interrupted) and would otherwise leave it running for the rest of --seconds.
   */
  private static void control(LongSupplier counted, Impl timed, PrintStream out) {
    Thread control = new Thread(() -> {
      try {
        serveControl(null, counted, timed, out);
      } catch (Exception e) {
        // stdin failed: treated as closed
      }
      System.exit(0);
    }, "bench-control");
    control.setDaemon(true);
    control.start();
  }

  /** The counting interval, {@code --tick-ms} (a second by default). */
  private static long tickNanos(Args a) {
    return TimeUnit.MILLISECONDS.toNanos(a.getInt("tick-ms", 1000, 1, 1000));
  }

  private static void latency(
      Impl impl, int port, String interaction, int size, int concurrency, int warmup, int seconds,
      long tickNanos, PrintStream out) throws Exception {
    Recorder recorder = new Recorder(3);
    LongAdder completed = new LongAdder();
    control(completed::sum, null, out);
    impl.latency(port, interaction, size, concurrency, nanos -> {
      recorder.recordValue(nanos);
      completed.increment();
    });
    Histogram total = null;
    long next = System.nanoTime();
    // The seconds before the first operation completes are start-up, neither warm-up nor measured
    // (a cold JVM on a loaded machine may complete nothing in its first seconds); at most 60.
    long startUp = TimeUnit.SECONDS.toNanos(60) / tickNanos;
    // The CPU this process uses over the measured intervals; MEASURING tells the orchestrator
    // they begin, so that it can mark the server's too.
    long cpuMark = 0;
    if (warmup == 0) {
      cpuMark = measuring(out);
    }
    int s = 0;
    while (s < warmup + seconds) {
      next += tickNanos;
      sleepUntil(next);
      Histogram h = recorder.getIntervalHistogram();
      if (startUp > 0 && h.getTotalCount() == 0) {
        startUp--;
        out.println("completed operations: 0 (start-up)");
        out.flush();
        if (warmup == 0) {
          cpuMark = measuring(out); // start-up is not measured: the CPU counts from here again
        }
        continue;
      }
      startUp = 0;
      boolean warm = s++ < warmup;
      out.println("completed operations: " + h.getTotalCount() + (warm ? " (warm-up)" : ""));
      out.flush();
      if (warm && s == warmup) {
        cpuMark = measuring(out);
      }
      if (!warm) {
        if (total == null) {
          total = h.copy();
        } else {
          total.add(h);
        }
      }
    }
    long cpu = processCpuNanos();
    out.println(latencyLine(total, seconds * tickNanos)
        + (cpu < 0 || cpuMark < 0 ? "" : " cpu_ns_per_op=" + (cpu - cpuMark) / Math.max(1, total.getTotalCount())));
    out.flush();
  }

  /** Prints {@code MEASURING} (the measured intervals begin) and returns the process's CPU time. */
  private static long measuring(PrintStream out) {
    out.println("MEASURING");
    out.flush();
    return processCpuNanos();
  }

  /**
   * {@code LATENCY p50_us=.. p95_us=.. p99_us=.. ops_per_sec=..} of the nanoseconds in {@code
   * total}, recorded over {@code seconds}: each percentile the value at or below which that share of
   * the recorded operations lies (HdrHistogram, 3 significant digits), in microseconds to 0.1;
   * operations per second rounded down.
   */
  public static String latencyLine(Histogram total, int seconds) {
    return latencyLine(total, TimeUnit.SECONDS.toNanos(seconds));
  }

  /** {@link #latencyLine(Histogram, int)} of operations recorded over {@code nanos}. */
  static String latencyLine(Histogram total, long nanos) {
    return String.format(
        Locale.ROOT,
        "LATENCY p50_us=%.1f p95_us=%.1f p99_us=%.1f ops_per_sec=%d",
        total.getValueAtPercentile(50) / 1000.0,
        total.getValueAtPercentile(95) / 1000.0,
        total.getValueAtPercentile(99) / 1000.0,
        (long) (total.getTotalCount() * 1e9 / nanos));
  }

  private static void tick(Counter counter, long tickNanos, PrintStream out) {
    try {
      while (counter.get() == 0) {
        Thread.sleep(5);
      }
      long last = 0;
      long next = System.nanoTime();
      while (true) {
        next += tickNanos;
        sleepUntil(next);
        long now = counter.get();
        out.println("received messages: " + (now - last));
        out.flush();
        last = now;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Answers MARK / REPORT / COUNT on stdin; {@code loopPrefix} null counts no allocations (the
   * client); {@code counted} is what COUNT reports; {@code timed}, a client's impl whose {@link
   * Impl#loadLatencies()} is not null, adds {@code P50_NS <ns> P99_NS <ns> FAILED <n>} to REPORT:
   * the operations recorded and failed since MARK.
   */
  private static void serveControl(
      String loopPrefix, LongSupplier counted, Impl timed, PrintStream out) throws Exception {
    Recorder latencies = timed == null ? null : timed.loadLatencies();
    long failedMark = 0;
    ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    Map<Long, Long> mark = new HashMap<>();
    long cpuMark = processCpuNanos();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("MARK")) {
        mark = loopAllocations(mx, loopPrefix);
        cpuMark = processCpuNanos();
        if (latencies != null) {
          latencies.getIntervalHistogram(); // from now on
          failedMark = timed.loadFailures();
        }
      } else if (line.equals("REPORT")) {
        long bytes = 0;
        for (Map.Entry<Long, Long> e : loopAllocations(mx, loopPrefix).entrySet()) {
          bytes += e.getValue() - mark.getOrDefault(e.getKey(), 0L);
        }
        String extra = "";
        if (latencies != null) {
          Histogram h = latencies.getIntervalHistogram();
          boolean none = h.getTotalCount() == 0;
          extra = " P50_NS " + (none ? -1 : h.getValueAtPercentile(50))
              + " P99_NS " + (none ? -1 : h.getValueAtPercentile(99))
              + " FAILED " + (timed.loadFailures() - failedMark);
        }
        synchronized (out) {
          out.println("ALLOC " + bytes + " CPU " + (processCpuNanos() - cpuMark) + extra);
          out.flush();
        }
      } else if (line.equals("COUNT")) {
        synchronized (out) {
          out.println("COUNT " + counted.getAsLong() + " " + System.nanoTime());
          out.flush();
        }
      }
    }
  }

  /** CPU time this process has used (all threads, JIT and GC included), or -1 if not known. */
  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
        : -1;
  }

  private static Map<Long, Long> loopAllocations(ThreadMXBean mx, String prefix) {
    Map<Long, Long> result = new HashMap<>();
    if (prefix == null) {
      return result;
    }
    long[] ids = mx.getAllThreadIds();
    ThreadInfo[] infos = mx.getThreadInfo(ids);
    for (int i = 0; i < ids.length; i++) {
      if (infos[i] != null && infos[i].getThreadName().startsWith(prefix)) {
        result.put(ids[i], mx.getThreadAllocatedBytes(ids[i]));
      }
    }
    return result;
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    long sleep = deadline - System.nanoTime();
    if (sleep > 0) {
      Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
    }
  }
}
