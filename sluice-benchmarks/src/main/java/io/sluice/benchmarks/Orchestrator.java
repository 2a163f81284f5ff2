package io.sluice.benchmarks;

import io.sluice.benchmarks.harness.Spec;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one benchmark as two child processes on 127.0.0.1 — the server pinned to CPU 0 and the
 * client to CPU 1 with {@code taskset} when it exists and the machine has two CPUs — and turns their
 * output into one {@code RESULT} line. Children are stopped by their own process handles.
 *
 * <p>A smoke orchestrator ({@link #smoke}, {@code ./sluice bench --smoke}) checks that runs start,
 * move messages and print their lines, and measures nothing: its children count in intervals of
 * {@link #SMOKE_TICK_MILLIS} instead of seconds (its callers' warm-up and seconds count those),
 * and a server JVM, once started, serves every later run that would start the same server, until
 * {@link #close}.
 */
final class Orchestrator implements AutoCloseable {
  /** How long the orchestrator waits for a child's next line (or first message). */
  static final long LINE_TIMEOUT_SECONDS = 60;

  /** A smoke run's counting interval: a run ends soon after its first counted message. */
  static final int SMOKE_TICK_MILLIS = 100;

  /** The outcome of one throughput run. */
  record Result(
      String impl,
      String interaction,
      int size,
      int window,
      long median,
      double bytesPerMessage,
      double serverCpuNanosPerMessage,
      double clientCpuNanosPerMessage,
      double p50Micros,
      double p99Micros,
      long failed) {}

  private final PrintStream out;
  private final boolean pin;
  /** The children's counting interval: a second, or {@link #SMOKE_TICK_MILLIS} for smoke runs. */
  private final int tickMillis;
  /** Smoke runs: the servers started so far, by {@link #serverKey}; null otherwise. */
  private final Map<String, Child> kept;
  /** The servers that counted a run (fnf); only a kept one counts another. */
  private final Set<Child> countingServers = new HashSet<>();

  Orchestrator(PrintStream out) {
    this(out, false);
  }

  private Orchestrator(PrintStream out, boolean smoke) {
    this.out = out;
    this.pin = Runtime.getRuntime().availableProcessors() >= 2 && onPath("taskset");
    this.tickMillis = smoke ? SMOKE_TICK_MILLIS : 1000;
    this.kept = smoke ? new HashMap<>() : null;
  }

  /** An orchestrator for smoke runs (see above); {@link #close} stops the servers it kept. */
  static Orchestrator smoke(PrintStream out) {
    return new Orchestrator(out, true);
  }

  /** Stops the servers a smoke orchestrator kept; nothing otherwise. */
  @Override
  public void close() throws InterruptedException {
    for (Child c : kept == null ? List.<Child>of() : kept.values()) {
      c.stop();
    }
  }

  /**
   * Which runs one smoke server serves: those of the same impl, interaction and size, except that
   * gRPC on the wire ({@code grpc:C-to-S}) is served by the same server whatever the client, the
   * interaction (rr or stream) and the size (its requests name the size).
   */
  static String serverKey(String impl, String interaction, int size) {
    int to = impl.startsWith("grpc:") ? impl.indexOf("-to-") : -1;
    return to > 0 ? "grpc server " + impl.substring(to + 4) : impl + " " + interaction + " " + size;
  }

  /** A server for a run: a new one, or for smoke runs the one kept for its key. */
  private Child server(String impl, String interaction, int size) throws IOException {
    if (kept == null) {
      return startServer(impl, interaction, size);
    }
    String key = serverKey(impl, interaction, size);
    Child c = kept.get(key);
    if (c == null) {
      c = startServer(impl, interaction, size);
      kept.put(key, c);
    }
    return c;
  }

  /** Ends a run's use of {@code server}: stops it unless a smoke orchestrator keeps it. */
  private void done(Child server) throws InterruptedException {
    if (kept == null) {
      server.stop();
    }
  }

  /** {@code seconds} in the children's counting intervals. */
  private long ticks(long seconds) {
    return seconds * 1000 / tickMillis;
  }

  /** {@code --tick-ms} for a child's command line when its interval is not a second. */
  private List<String> tickArgs() {
    return tickMillis == 1000 ? List.of() : List.of("--tick-ms", String.valueOf(tickMillis));
  }

  boolean pinned() {
    return pin;
  }

  Result throughput(
      String impl, String interaction, int size, int window, int warmup, int seconds)
      throws IOException, InterruptedException {
    Child server = server(impl, interaction, size);
    try {
      return throughput(server, server.listening(), impl, interaction, size, window, warmup, seconds);
    } finally {
      done(server);
    }
  }

  /** One client run of {@link #throughputs}: the interaction and the requests kept outstanding. */
  record Load(String interaction, int window) {}

  /**
   * Runs {@code loads} one after the other against one server process of {@code impl}, each with
   * a new client process and its own {@code MARK} ... {@code REPORT} on both (each result counts
   * only its own run). For a quick check that an impl moves messages of several kinds, which needs
   * no fresh server per kind: a server answers every interaction with {@code size} bytes, but
   * counts {@code fnf} only when started for it (not allowed here).
   */
  List<Result> throughputs(String impl, int size, int warmup, int seconds, List<Load> loads)
      throws IOException, InterruptedException {
    if (loads.isEmpty() || loads.stream().anyMatch(l -> l.interaction().equals("fnf"))) {
      throw new IllegalArgumentException("the loads of one server: at least one, and no fnf");
    }
    Child server = server(impl, loads.get(0).interaction(), size);
    try {
      int port = server.listening();
      List<Result> results = new ArrayList<>();
      for (Load l : loads) {
        results.add(
            throughput(server, port, impl, l.interaction(), size, l.window(), warmup, seconds));
      }
      return results;
    } finally {
      done(server);
    }
  }

  /** One client run against {@code server}, which listens on {@code port}; the client is stopped. */
  private Result throughput(
      Child server, int port, String impl, String interaction, int size, int window, int warmup,
      int seconds) throws IOException, InterruptedException {
    Child client = null;
    // fnf: the server counts. A kept server (smoke runs) that counted an earlier run has printed
    // that run's counts since, and may still be counting its last messages: those lines are
    // dropped, and this run reads only counts after one in which nothing came (before its client).
    boolean counted = interaction.equals("fnf") && countingServers.contains(server);
    if (counted) {
      server.dropQueued();
      server.awaitIdleCount(ticks(LINE_TIMEOUT_SECONDS));
    }
    try {
      List<String> args = new ArrayList<>(List.of("client", "--impl", impl,
          "--interaction", interaction, "--size", String.valueOf(size),
          "--port", String.valueOf(port), "--window", String.valueOf(window),
          // For fnf the server counts; the client sends a little longer than it is read, and
          // always outlives the last count long enough to answer REPORT (without warm-up, also
          // the start-up seconds below; the orchestrator ends it in any case).
          "--seconds", String.valueOf(warmup + seconds + ticks((interaction.equals("fnf") ? 5 : 3)
              + (warmup == 0 ? LINE_TIMEOUT_SECONDS : 0)))));
      args.addAll(tickArgs());
      client = Child.start(command(impl, 1, false, args.toArray(new String[0])));
      Child counting = interaction.equals("fnf") ? server : client;
      if (warmup == 0) {
        server.send("MARK");
        client.send("MARK");
      }
      List<Long> samples = new ArrayList<>();
      // Without warm-up, the client's seconds before its first message are start-up (a cold JVM
      // on a loaded machine may connect and move nothing in its first second), not measured ones;
      // at most LINE_TIMEOUT_SECONDS of them. (fnf: a new server counts from its first message;
      // a kept one counts all along, so its zeros before the new client's first are start-up too.)
      long startUp =
          warmup == 0 && (counting == client || counted) ? ticks(LINE_TIMEOUT_SECONDS) : 0;
      int s = 0;
      while (s < warmup + seconds) {
        long n = counting.count();
        if (startUp > 0 && n == 0) {
          startUp--;
          out.println("received messages: 0 (start-up)");
          out.flush();
          continue;
        }
        startUp = 0;
        boolean warm = s < warmup;
        out.println("received messages: " + n + (warm ? " (warm-up)" : ""));
        out.flush();
        if (warm && s == warmup - 1) {
          server.send("MARK");
          client.send("MARK");
        } else if (!warm) {
          samples.add(n);
        }
        s++;
      }
      if (counting == server) {
        countingServers.add(server); // its ticker runs: it prints counts from now on
      }
      server.send("REPORT");
      client.send("REPORT");
      long[] serverStats = server.alloc();
      long[] clientStats = client.alloc();
      long total = samples.stream().mapToLong(Long::longValue).sum();
      double perMessage = total == 0 ? Double.NaN : (double) serverStats[0] / total;
      double serverCpu = total == 0 || serverStats[1] < 0 ? Double.NaN : (double) serverStats[1] / total;
      double clientCpu = total == 0 || clientStats[1] < 0 ? Double.NaN : (double) clientStats[1] / total;
      // Per second: a smoke run's samples count its intervals of tickMillis.
      Result r = new Result(impl, interaction, size, window, median(samples) * 1000 / tickMillis,
          perMessage, serverCpu, clientCpu, micros(clientStats[2]), micros(clientStats[3]),
          clientStats[4]);
      out.printf(
          "RESULT impl=%s interaction=%s size=%d msgs_per_sec=%d server_loop_bytes_per_msg=%.1f"
              + " server_cpu_ns_per_msg=%.0f client_cpu_ns_per_msg=%.0f window=%d%n",
          impl, interaction, size, r.median(), perMessage, serverCpu, clientCpu, window);
      out.flush();
      return r;
    } finally {
      if (client != null) {
        client.stop();
      }
    }
  }

  private static double micros(long nanos) {
    return nanos < 0 ? Double.NaN : nanos / 1000.0;
  }

  /** Starts the server child of {@code impl}, pinned to CPU 0 when pinning is on. */
  private Child startServer(String impl, String interaction, int size) throws IOException {
    return startServer(impl, null, interaction, size);
  }

  private Child startServer(String impl, String classpath, String interaction, int size)
      throws IOException {
    List<String> args = new ArrayList<>(List.of("server", "--impl", impl,
        "--interaction", interaction, "--size", String.valueOf(size)));
    args.addAll(tickArgs());
    return Child.start(command(impl, classpath, 0, true, args.toArray(new String[0])));
  }

  /** The outcome of one latency run: percentiles in microseconds, completed operations per second. */
  record Latency(double p50Micros, double p95Micros, double p99Micros, long opsPerSecond,
      double serverCpuMicros, double clientCpuMicros) {
    Latency(double p50Micros, double p95Micros, double p99Micros, long opsPerSecond) {
      this(p50Micros, p95Micros, p99Micros, opsPerSecond, Double.NaN, Double.NaN);
    }

    /**
     * Reads the fields of a child's {@code LATENCY p50_us=.. p95_us=.. p99_us=.. ops_per_sec=..}
     * line ({@code ChildMain.latencyLine}); an IllegalStateException if one is missing. The CPU
     * per operation of the server ({@code server_cpu_ns_per_op}, which the orchestrator adds) and
     * of the client ({@code cpu_ns_per_op}) are NaN when the line does not give them.
     */
    static Latency parse(String line) {
      Map<String, String> f = new HashMap<>();
      for (String word : line.trim().split("\\s+")) {
        int eq = word.indexOf('=');
        if (eq > 0) {
          f.put(word.substring(0, eq), word.substring(eq + 1));
        }
      }
      try {
        return new Latency(
            Double.parseDouble(f.get("p50_us")),
            Double.parseDouble(f.get("p95_us")),
            Double.parseDouble(f.get("p99_us")),
            Long.parseLong(f.get("ops_per_sec")),
            micros(f.get("server_cpu_ns_per_op")),
            micros(f.get("cpu_ns_per_op")));
      } catch (NullPointerException | NumberFormatException e) {
        throw new IllegalStateException("not a LATENCY line: " + line, e);
      }
    }
  }

  private static double micros(String nanos) {
    return nanos == null ? Double.NaN : Long.parseLong(nanos) / 1000.0;
  }

  /** Runs one latency case and prints its {@code LATENCY} line; returns that line. */
  String latency(String impl, String interaction, int size, int concurrency, int warmup, int seconds)
      throws IOException, InterruptedException {
    String line = latencyLine(impl, interaction, size, concurrency, warmup, seconds);
    String result = "LATENCY impl=" + impl + " interaction=" + interaction + " size=" + size
        + " concurrency=" + concurrency + " " + line.substring("LATENCY ".length());
    out.println(result);
    out.flush();
    return result;
  }

  /**
   * Runs one latency case (a server and a client JVM, the client's closed loop of {@code
   * concurrency} operations) and returns its outcome, printing the children's progress lines.
   */
  Latency latencyStats(
      String impl, String interaction, int size, int concurrency, int warmup, int seconds)
      throws IOException, InterruptedException {
    return Latency.parse(latencyLine(impl, interaction, size, concurrency, warmup, seconds));
  }

  /** Runs one latency case; returns the client's {@code LATENCY} line. */
  private String latencyLine(
      String impl, String interaction, int size, int concurrency, int warmup, int seconds)
      throws IOException, InterruptedException {
    Child server = null;
    Child client = null;
    try {
      server = server(impl, interaction, size);
      int port = server.listening();
      List<String> args = latencyClient(impl, interaction, size, port, concurrency, warmup, seconds);
      args.addAll(tickArgs());
      client = Child.start(command(impl, 1, false, args.toArray(new String[0])));
      long marked = 0;
      while (true) {
        String line = client.line();
        if (line.equals("MEASURING")) {
          // The measured seconds begin (again, after a start-up interval when there is no warm-up).
          server.send("MARK");
          marked = System.nanoTime();
          continue;
        }
        if (line.startsWith("LATENCY ")) {
          if (marked == 0) {
            return line;
          }
          server.send("REPORT");
          long elapsed = System.nanoTime() - marked;
          long cpu = server.alloc()[1];
          // The server's CPU share over the measured seconds, per operation the client completed.
          Latency l = Latency.parse(line);
          return cpu < 0 || l.opsPerSecond() == 0
              ? line
              : line + String.format(Locale.ROOT, " server_cpu_ns_per_op=%d",
                  (long) (cpu * 1e9 / elapsed / l.opsPerSecond()));
        }
        out.println(line);
        out.flush();
      }
    } finally {
      if (client != null) {
        client.stop();
      }
      if (server != null) {
        done(server);
      }
    }
  }

  /**
   * The outcome of an interleaved comparison: per round, the rate of {@code a} and of {@code b}
   * (messages per second), measured within a few seconds of each other.
   */
  record Pair(String a, String b, String interaction, int size, double[] aRates, double[] bRates) {
    /** Per round, b's rate over a's. */
    double[] ratios() {
      double[] r = new double[aRates.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = ratio(aRates[i], bRates[i]);
      }
      return r;
    }

    /** {@code b} over {@code a}; NaN when {@code a} counted nothing. */
    static double ratio(double a, double b) {
      return a == 0 ? Double.NaN : b / a;
    }

    double ratioQuantile(double q) {
      return quantile(ratios(), q);
    }

    double aMedian() {
      return quantile(aRates, 0.5);
    }

    double bMedian() {
      return quantile(bRates, 0.5);
    }
  }

  /**
   * The {@code q}-quantile of {@code values} (NaN ignored) by linear interpolation between order
   * statistics; NaN when nothing is left.
   */
  static double quantile(double[] values, double q) {
    double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    double pos = q * (v.length - 1);
    int lo = (int) Math.floor(pos);
    int hi = Math.min(lo + 1, v.length - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
  }

  /**
   * Compares two impls on a machine whose speed changes from one second to the next (a shared
   * host): both run at once as two server/client process pairs, but only one pair at a time is
   * allowed to run — the other is stopped whole with SIGSTOP — and they take turns, {@code
   * sliceMillis} each (after {@code settleMillis} to pick up again), for {@code rounds} rounds, the
   * order flipping every round. Each pair first warms up alone for {@code warmup} seconds. A
   * round's ratio compares two slices taken seconds apart, so a slow spell of the host shows in
   * both or (rarely) in one round only; the median ratio is what to quote.
   *
   * <p>Two JVMs of the same build also differ by a few per cent for their whole life (the JIT's
   * choices): the whole thing is repeated {@code epochs} times with new processes, the pair started
   * first alternating, and the rounds of all epochs pooled.
   */
  Pair interleaved(
      String implA, String implB, String interaction, int size, int warmup, int epochs,
      int rounds, int sliceMillis, int settleMillis) throws IOException, InterruptedException {
    if (!pin) {
      throw new IllegalStateException("interleaved runs need taskset and two CPUs");
    }
    double[] aRates = new double[epochs * rounds];
    double[] bRates = new double[epochs * rounds];
    for (int e = 0; e < epochs; e++) {
      Running a = null;
      Running b = null;
      try {
        for (int k = 0; k < 2; k++) {
          boolean isA = (k == 0) == (e % 2 == 0);
          // SLUICE_BENCH_CLASSPATH_B: B's processes run another build (A/B of two builds).
          String cp = isA ? null : System.getenv("SLUICE_BENCH_CLASSPATH_B");
          Running x = Running.start(this, isA ? implA : implB, cp, interaction, size);
          if (isA) {
            a = x;
          } else {
            b = x;
          }
          warm(x, warmup);
          x.signal("STOP");
        }
        for (int r = 0; r < rounds; r++) {
          int i = e * rounds + r;
          boolean aFirst = i % 2 == 0;
          for (Running x : aFirst ? List.of(a, b) : List.of(b, a)) {
            x.signal("CONT");
            Thread.sleep(settleMillis);
            double rate = x.rate(sliceMillis);
            x.signal("STOP");
            if (x == a) {
              aRates[i] = rate;
            } else {
              bRates[i] = rate;
            }
          }
          out.printf(Locale.ROOT, "epoch %d round %d: %s %s, %s %s, ratio %.3f%n", e + 1, r + 1,
              implA, rate(aRates[i]), implB, rate(bRates[i]), Pair.ratio(aRates[i], bRates[i]));
          out.flush();
        }
      } finally {
        for (Running x : Arrays.asList(a, b)) {
          if (x != null) {
            x.stop();
          }
        }
      }
    }
    Pair p = new Pair(implA, implB, interaction, size, aRates, bRates);
    out.printf(Locale.ROOT,
        "PAIR impl_a=%s impl_b=%s interaction=%s size=%d a_msgs_per_sec=%.0f b_msgs_per_sec=%.0f"
            + " ratio_median=%.3f ratio_p25=%.3f ratio_p75=%.3f epochs=%d rounds=%d%n",
        implA, implB, interaction, size, p.aMedian(), p.bMedian(), p.ratioQuantile(0.5),
        p.ratioQuantile(0.25), p.ratioQuantile(0.75), epochs, epochs * rounds);
    out.flush();
    return p;
  }

  private void warm(Running x, int seconds) throws IOException, InterruptedException {
    for (int s = 0; s < seconds; s++) {
      out.println("warm-up " + x.impl + ": " + rate(x.rate(1000)));
      out.flush();
    }
  }

  /** Messages per second for a table or a log line: {@code 1.23 M/s}, {@code 456 k/s}, {@code 789/s}. */
  static String rate(double perSecond) {
    if (perSecond >= 1_000_000) {
      return String.format(Locale.ROOT, "%.2f M/s", perSecond / 1e6);
    }
    if (perSecond >= 10_000) {
      return String.format(Locale.ROOT, "%.0f k/s", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f/s", perSecond);
  }

  /** A latency client's arguments ({@code ChildMain}'s {@code client --latency}), to add to. */
  static List<String> latencyClient(
      String impl, String interaction, int size, int port, int concurrency, int warmup, int seconds) {
    return new ArrayList<>(List.of("client", "--impl", impl,
        "--interaction", interaction, "--size", String.valueOf(size),
        "--port", String.valueOf(port), "--latency", "--concurrency", String.valueOf(concurrency),
        "--warmup", String.valueOf(warmup), "--seconds", String.valueOf(seconds)));
  }

  /** Callers on the connection of a {@code --pair} of {@code texts24}: the latency table's largest. */
  static final int PAIRED_CONCURRENCY = 8;

  /** One impl's server and client processes, for interleaved runs. */
  private static final class Running {
    final String impl;
    final Child server;
    final Child client;
    final Child counting;

    private Running(String impl, Child server, Child client, Child counting) {
      this.impl = impl;
      this.server = server;
      this.client = client;
      this.counting = counting;
    }

    static Running start(Orchestrator o, String impl, String classpath, String interaction, int size)
        throws IOException, InterruptedException {
      Child server = o.startServer(impl, classpath, interaction, size);
      Child client = null;
      try {
        int port = server.listening();
        // The client's own clock does not end the run: the orchestrator stops it.
        // texts24: the latency table's request-streams, PAIRED_CONCURRENCY callers, counted as
        // streams completed (the latency client's COUNT); else the throughput load.
        List<String> args =
            interaction.equals(Spec.TEXTS24)
                ? latencyClient(impl, interaction, size, port, PAIRED_CONCURRENCY, 0, 86400)
                : List.of("client", "--impl", impl,
                    "--interaction", interaction, "--size", String.valueOf(size),
                    "--port", String.valueOf(port),
                    "--window", String.valueOf(Spec.defaultWindow(impl, interaction)),
                    "--seconds", "86400");
        client = Child.start(o.command(impl, classpath, 1, false, args.toArray(new String[0])));
      } catch (IOException | InterruptedException | RuntimeException e) {
        server.stop();
        throw e;
      }
      Running r = new Running(impl, server, client, interaction.equals("fnf") ? server : client);
      try {
        r.awaitFlow();
      } catch (IOException | InterruptedException | RuntimeException e) {
        r.stop();
        throw e;
      }
      return r;
    }

    /** Waits for the first message counted, so that warm-up and turns never include start-up. */
    private void awaitFlow() throws IOException, InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LINE_TIMEOUT_SECONDS);
      while (counting.total()[0] == 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              impl + " counted no message within " + LINE_TIMEOUT_SECONDS + " s of starting");
        }
        Thread.sleep(10);
      }
    }

    /** Messages per second counted over the next {@code millis}, by the counting child's clock. */
    double rate(int millis) throws IOException, InterruptedException {
      long[] first = counting.total();
      Thread.sleep(millis);
      long[] last = counting.total();
      long nanos = last[1] - first[1];
      return nanos <= 0 ? 0 : (last[0] - first[0]) * 1e9 / nanos;
    }

    /** Sends SIGSTOP or SIGCONT to both processes (client first on STOP, server first on CONT). */
    void signal(String signal) throws IOException, InterruptedException {
      List<Child> order = signal.equals("STOP") ? List.of(client, server) : List.of(server, client);
      for (Child c : order) {
        c.signal(signal);
      }
    }

    void stop() throws InterruptedException {
      // A stopped process would keep SIGTERM pending; let both run again before ending them.
      for (Child c : List.of(client, server)) {
        try {
          c.signal("CONT");
        } catch (IOException | RuntimeException e) {
          // already gone
        }
      }
      client.stop();
      server.stop();
    }
  }

  static long median(List<Long> samples) {
    if (samples.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * The command line of a child of {@code impl} (this JVM's class path, or the peer jar for the
   * rsocket-java and Spring RSocket impls), pinned to {@code cpu} when pinning is on, with {@code
   * args} after the main class.
   */
  List<String> command(String impl, int cpu, boolean server, String... args) {
    return command(impl, null, cpu, server, args);
  }

  /** The child's command line; {@code classpath} null or empty means this JVM's class path. */
  private List<String> command(
      String impl, String classpath, int cpu, boolean server, String... args) {
    List<String> cmd = new ArrayList<>();
    if (pin) {
      cmd.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
    }
    cmd.add(Path.javaBinary());
    // The same heap settings for every impl; extra options from the environment (e.g. JFR).
    cmd.add("-Xms1g");
    cmd.add("-Xmx1g");
    if (impl.equals("sluice-virtualthreads-eventloop")) {
      // EventLoopThreads schedules virtual threads on the event loop through the JDK's
      // non-public scheduler hook, which needs java.lang opened.
      cmd.add("--add-opens");
      cmd.add("java.base/java.lang=ALL-UNNAMED");
    }
    split(System.getenv("SLUICE_BENCH_JAVA_OPTS"), cmd);
    if (server) {
      split(System.getenv("SLUICE_BENCH_SERVER_OPTS"), cmd);
    } else {
      split(System.getenv("SLUICE_BENCH_CLIENT_OPTS"), cmd);
    }
    if (Spec.PEER_JAR_IMPLS.contains(impl)) {
      String jar = System.getProperty("sluice.bench.peers", "peers/rsocket-java-bench/target/peers-rsocket.jar");
      if (!new File(jar).isFile()) {
        throw new IllegalStateException(
            "the rsocket-java / Spring RSocket peer jar is missing: " + jar
                + " (./sluice bench builds it; or ./mvnw -f peers/rsocket-java-bench/pom.xml package)");
      }
      cmd.add("-jar");
      cmd.add(jar);
    } else {
      cmd.add("-cp");
      cmd.add(
          classpath == null || classpath.isEmpty() ? System.getProperty("java.class.path") : classpath);
      cmd.add(BenchMain.class.getName());
    }
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  private static void split(String opts, List<String> into) {
    if (opts != null && !opts.isBlank()) {
      into.addAll(Arrays.asList(opts.trim().split("\\s+")));
    }
  }

  private static boolean onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, name).canExecute()) {
        return true;
      }
    }
    return false;
  }

  /** Where the java binary of this JVM is. */
  private static final class Path {
    static String javaBinary() {
      return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }
  }
}
