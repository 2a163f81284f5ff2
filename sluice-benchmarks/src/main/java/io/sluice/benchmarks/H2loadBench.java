package io.sluice.benchmarks;

import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.h2load.Payload;
import io.sluice.benchmarks.h2load.SimpleRequest;
import com.google.protobuf.ByteString;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./sluice bench --compare-grpc --h2load}: the capacity of a gRPC server on one core,
 * measured from outside with nghttp2's C load generator {@code h2load} (issue 36 item 1), for
 * Sluice's {@code GrpcServer} and grpc-java's benchmark server ({@code
 * io.grpc.benchmarks.qps.AsyncServer}'s service and server set-up with {@code --directexecutor},
 * peers/grpc-java-bench). Both serve {@code grpc.testing.BenchmarkService/UnaryCall}, so one
 * prepared request body (the 5-byte gRPC prefix and a {@code SimpleRequest} asking for a payload
 * of the case's size and carrying one) and one {@code :path} reach either.
 *
 * <p>Per implementation and case: the server JVM starts pinned to CPU 1 alone ({@code taskset}),
 * h2load runs on CPU 0 ({@link #CONNECTIONS} connections x {@link #STREAMS} streams), first a
 * warm-up of {@code --warmup} seconds (90 by default: a JVM pinned to one CPU runs SerialGC and its
 * JIT settles slowly, after 30, 45 and 60 s the first round still ran 1.3-1.9x the CPU per call of
 * the next ones, and by hand Sluice's server settled after 55-70 s of load; a warm-up counted in
 * calls was over in a few seconds for the faster server; or
 * {@code --warmup-calls N} calls), then {@code rounds} measured runs of {@code calls} calls each.
 * Each measured run gives calls/s (h2load's own figure) and the server process's CPU per call (its
 * {@code /proc/PID/stat} utime+stime over the run, over the calls). Then one latency run of a
 * quarter of that many calls with h2load's per-request log gives the 99th percentile of the calls'
 * times: the log costs h2load so much (about 200 k calls/s with it, 275 k without, on one AMD EPYC
 * core) that it, not the server, bounded the rounds. A run is refused (no RESULT) unless every
 * call succeeded and the DATA received is exactly one response message of the expected size per call: h2load counts
 * HTTP statuses, and a gRPC error is a 200 too, but carries no message. The RESULT line holds the
 * medians of the rounds and the latency run's p99.
 */
final class H2loadBench {
  static final int CONNECTIONS = 4;
  static final int STREAMS = 32;
  static final List<String> IMPLS = List.of("sluice", "grpc-java");
  static final List<Integer> SIZES = List.of(8, 128);
  static final String PATH = "/grpc.testing.BenchmarkService/UnaryCall";
  static final int DEFAULT_CALLS = 1_000_000;
  static final int DEFAULT_WARMUP_SECONDS = 90;
  /** The latency run after the rounds makes this share of a round's calls. */
  static final int LATENCY_SHARE = 4;
  static final int DEFAULT_ROUNDS = 3;
  /** The grpc-java peer's class path folder (peers/grpc-java-bench, built by run.sh). */
  static final String GRPC_JAVA_PEER = "peers/grpc-java-bench";

  private H2loadBench() {}

  /** One measured h2load run. */
  record Run(double callsPerSec, double serverCpuMicrosPerCall, double p99Micros) {}

  /** A warm-up of {@code calls} calls, or else of {@code seconds} seconds (nothing if both are 0). */
  record Warmup(int calls, int seconds) {
    @Override
    public String toString() {
      return calls > 0 ? calls + " warm-up calls" : "a warm-up of " + seconds + " s";
    }
  }

  /** What h2load printed about a run. */
  record H2loadOutput(double reqPerSec, long succeeded, long failed, long errored, long dataBytes) {}

  static int run(Args a, PrintStream out) throws Exception {
    List<String> impls = a.has("impl") ? List.of(a.get("impl", "")) : IMPLS;
    if (!IMPLS.containsAll(impls)) {
      throw new Args.UsageException("--compare-grpc --h2load takes --impl sluice or grpc-java, got " + impls);
    }
    List<Integer> sizes = a.has("size") ? List.of(a.getInt("size", 8, 1, 1 << 20)) : SIZES;
    // h2load refuses fewer calls than connections.
    int calls = a.getInt("calls", DEFAULT_CALLS, CONNECTIONS, 100_000_000);
    if (a.has("warmup") && a.has("warmup-calls")) {
      throw new Args.UsageException("--warmup (seconds) or --warmup-calls (calls), not both");
    }
    Warmup warmup = a.has("warmup-calls")
        ? new Warmup(a.getInt("warmup-calls", 0, 0, 100_000_000), 0)
        : new Warmup(0, a.getInt("warmup", DEFAULT_WARMUP_SECONDS, 0, 3600));
    int rounds = a.getInt("rounds", DEFAULT_ROUNDS, 1, 100);
    String h2load = h2load();
    boolean pin = Runtime.getRuntime().availableProcessors() >= 2 && onPath("taskset");
    out.println("# gRPC unary calls from nghttp2's h2load (" + version(h2load) + "): " + CONNECTIONS
        + " connections x " + STREAMS + " streams, " + calls + " calls per measured run after "
        + warmup + ", " + rounds + " rounds (medians); "
        + (pin ? "server JVM pinned to CPU 1 alone, h2load to CPU 0 (taskset)" : "not pinned (no taskset or 1 CPU)"));
    out.println("# machine: " + Machine.describe());
    Map<String, Map<String, Run>> results = new LinkedHashMap<>();
    for (int size : sizes) {
      String kase = "unary-" + size;
      Path body = Files.createTempFile("sluice-h2load-", ".bin");
      Path log = Files.createTempFile("sluice-h2load-", ".log");
      try {
        Files.write(body, requestBody(size));
        for (String impl : impls) {
          out.println("## " + impl + " " + kase);
          out.flush();
          Run r = measure(impl, size, body, log, h2load, pin, calls, warmup, rounds, out);
          results.computeIfAbsent(kase, k -> new LinkedHashMap<>()).put(impl, r);
          out.println(resultLine(impl, kase, r));
          out.flush();
        }
      } finally {
        Files.deleteIfExists(body);
        Files.deleteIfExists(log);
      }
    }
    if (impls.size() == 2) {
      out.println();
      out.println("| case | Sluice calls/s | grpc-java calls/s | ratio (≥ 2x) | Sluice server CPU µs/call"
          + " | grpc-java | ratio (≤ 0.5x) | Sluice p99 µs | grpc-java p99 µs |");
      out.println("|---|---|---|---|---|---|---|---|---|");
      for (Map.Entry<String, Map<String, Run>> e : results.entrySet()) {
        Run s = e.getValue().get("sluice");
        Run g = e.getValue().get("grpc-java");
        out.println(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.2f | %.2f | %s | %.0f | %.0f |",
            e.getKey(), Orchestrator.rate(s.callsPerSec()), Orchestrator.rate(g.callsPerSec()),
            GrpcComparison.verdict(s.callsPerSec() / g.callsPerSec(), 2.0, true),
            s.serverCpuMicrosPerCall(), g.serverCpuMicrosPerCall(),
            GrpcComparison.verdict(s.serverCpuMicrosPerCall() / g.serverCpuMicrosPerCall(), 0.5, false),
            s.p99Micros(), g.p99Micros()));
      }
    }
    return 0;
  }

  /** {@code RESULT grpc-server impl=.. case=.. calls_per_sec=.. server_cpu_us_per_call=.. p99_us=..}. */
  static String resultLine(String impl, String kase, Run r) {
    return String.format(Locale.ROOT,
        "RESULT grpc-server impl=%s case=%s calls_per_sec=%d server_cpu_us_per_call=%.2f p99_us=%.0f",
        impl, kase, Math.round(r.callsPerSec()), r.serverCpuMicrosPerCall(), r.p99Micros());
  }

  /** The request h2load sends: the gRPC prefix, then a SimpleRequest for and with {@code size} bytes. */
  static byte[] requestBody(int size) {
    byte[] message = request(size).toByteArray();
    return ByteBuffer.allocate(5 + message.length).put((byte) 0).putInt(message.length).put(message).array();
  }

  static SimpleRequest request(int size) {
    return SimpleRequest.newBuilder()
        .setResponseSize(size)
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])))
        .build();
  }

  /** The DATA bytes of one answer: the gRPC prefix and a SimpleResponse with {@code size} bytes. */
  static long responseBytes(int size) {
    return 5 + io.sluice.benchmarks.h2load.SimpleResponse.newBuilder()
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])))
        .build()
        .getSerializedSize();
  }

  private static Run measure(
      String impl, int size, Path body, Path log, String h2load, boolean pin, int calls,
      Warmup warmup, int rounds, PrintStream out) throws Exception {
    Child server = Child.start(serverCommand(impl, pin));
    try {
      int port = server.listening();
      long pid = server.pid();
      if (warmup.calls() > 0) {
        h2load(h2load, pin, port, body, null, warmup.calls(), 0);
      } else if (warmup.seconds() > 0) {
        h2load(h2load, pin, port, body, null, 0, warmup.seconds()); // its figures are not used
      }
      long ticksPerSecond = clockTicks();
      List<Run> runs = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        long before = cpuTicks(pid);
        H2loadOutput o = h2load(h2load, pin, port, body, null, calls, 0);
        long after = cpuTicks(pid);
        check(o, calls, responseBytes(size));
        double cpuMicros = (after - before) * 1e6 / ticksPerSecond / o.succeeded();
        out.println(String.format(Locale.ROOT,
            "round %d: calls_per_sec=%.0f server_cpu_us_per_call=%.2f", i + 1, o.reqPerSec(), cpuMicros));
        out.flush();
        runs.add(new Run(o.reqPerSec(), cpuMicros, 0));
      }
      // The latency apart: h2load writing a line per call into its log costs it about a third of
      // its speed, and the faster server was no longer what the rounds measured.
      int latencyCalls = latencyCalls(calls);
      H2loadOutput o = h2load(h2load, pin, port, body, log, latencyCalls, 0);
      check(o, latencyCalls, responseBytes(size));
      double p99 = p99Micros(log);
      if (Double.isNaN(p99)) {
        throw new IllegalStateException("h2load's request log of the latency run holds no call: " + log);
      }
      out.println(String.format(Locale.ROOT, "latency run: %d calls p99_us=%.0f", latencyCalls, p99));
      out.flush();
      return new Run(
          median(runs.stream().mapToDouble(Run::callsPerSec).toArray()),
          median(runs.stream().mapToDouble(Run::serverCpuMicrosPerCall).toArray()),
          p99);
    } finally {
      server.stop();
    }
  }

  /** Refuses a run with failed calls or with other than one response message of the size per call. */
  static void check(H2loadOutput o, long calls, long responseBytes) {
    if (o.succeeded() != calls || o.failed() != 0 || o.errored() != 0) {
      throw new IllegalStateException("h2load: " + o.succeeded() + " of " + calls + " calls succeeded ("
          + o.failed() + " failed, " + o.errored() + " errored)");
    }
    if (o.dataBytes() != calls * responseBytes) {
      throw new IllegalStateException("h2load: " + o.dataBytes() + " bytes of DATA for " + calls
          + " calls, expected " + responseBytes + " per call: some calls did not get their response"
          + " message (a gRPC error?)");
    }
  }

  /** The server's command line: Sluice's from this JVM's class path, grpc-java's from its peer folder. */
  static List<String> serverCommand(String impl, boolean pin) {
    List<String> cmd = new ArrayList<>();
    if (pin) {
      cmd.addAll(List.of("taskset", "-c", "1"));
    }
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.add("-Xms1g");
    cmd.add("-Xmx1g");
    split(System.getenv("SLUICE_BENCH_JAVA_OPTS"), cmd);
    split(System.getenv("SLUICE_BENCH_SERVER_OPTS"), cmd);
    if (impl.equals("sluice")) {
      cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), BenchMain.class.getName(),
          "grpc-bench-server"));
      return cmd;
    }
    File peer = new File(System.getProperty("sluice.bench.grpcJavaPeer", GRPC_JAVA_PEER));
    File lib = new File(peer, "target/lib");
    if (!lib.isDirectory()) {
      throw new IllegalStateException("grpc-java's benchmark server is not built: " + lib + " is missing"
          + " (./sluice bench builds it; or ./mvnw -f " + GRPC_JAVA_PEER + "/pom.xml package)");
    }
    cmd.addAll(List.of("-cp", lib.getPath() + File.separator + "*",
        new File(peer, "BenchServer.java").getPath()));
    return cmd;
  }

  private static void split(String opts, List<String> into) {
    if (opts != null && !opts.isBlank()) {
      into.addAll(Arrays.asList(opts.trim().split("\\s+")));
    }
  }

  /**
   * Runs h2load to the end (or kills it past its time): {@code calls} calls, or for {@code seconds}
   * seconds when that is above 0; {@code log} null writes no request log.
   */
  private static H2loadOutput h2load(
      String h2load, boolean pin, int port, Path body, Path log, int calls, int seconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (pin) {
      cmd.addAll(List.of("taskset", "-c", "0"));
    }
    cmd.addAll(seconds > 0 ? List.of(h2load, "-D", String.valueOf(seconds))
        : List.of(h2load, "-n", String.valueOf(calls)));
    cmd.addAll(List.of("-c", String.valueOf(CONNECTIONS),
        "-m", String.valueOf(STREAMS), "-t", "1", "-d", body.toString(),
        "-H", "content-type: application/grpc", "-H", "te: trailers"));
    if (log != null) {
      Files.write(log, new byte[0]); // h2load appends to its log: each run its own
      cmd.add("--log-file=" + log);
    }
    cmd.add("http://127.0.0.1:" + port + PATH);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    // Its output is a few lines, read after the end; at least 500 calls/s (a cold JVM on a loaded
    // 2-core machine did 2,000) or it is stopped.
    long timeoutSeconds = 120 + (seconds > 0 ? seconds : calls / 500L);
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      throw new IllegalStateException("h2load did not finish "
          + (seconds > 0 ? "its " + seconds + " s" : calls + " calls") + " within " + timeoutSeconds + " s");
    }
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    H2loadOutput o = parse(text);
    if (o == null) {
      throw new IllegalStateException("h2load exited " + p.exitValue() + " without its summary:\n" + text);
    }
    return o;
  }

  private static final Pattern FINISHED = Pattern.compile("finished in [^,]+, ([0-9.]+) req/s");
  private static final Pattern REQUESTS = Pattern.compile(
      "requests: \\d+ total, \\d+ started, \\d+ done, (\\d+) succeeded, (\\d+) failed, (\\d+) errored");
  private static final Pattern DATA = Pattern.compile("traffic: .*\\((\\d+)\\) data");

  /** h2load's summary, or null if it printed none. */
  static H2loadOutput parse(String text) {
    Matcher f = FINISHED.matcher(text);
    Matcher r = REQUESTS.matcher(text);
    Matcher d = DATA.matcher(text);
    if (!f.find() || !r.find() || !d.find()) {
      return null;
    }
    return new H2loadOutput(Double.parseDouble(f.group(1)), Long.parseLong(r.group(1)),
        Long.parseLong(r.group(2)), Long.parseLong(r.group(3)), Long.parseLong(d.group(1)));
  }

  /** The calls of the latency run after rounds of {@code calls}: a share, at least one per connection. */
  static int latencyCalls(int calls) {
    return Math.max(CONNECTIONS, calls / LATENCY_SHARE);
  }

  /** The 99th percentile of the third column (µs until the response ended) of h2load's log. */
  static double p99Micros(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.US_ASCII);
    long[] micros = new long[lines.size()];
    int n = 0;
    for (String line : lines) {
      String[] f = line.split("\t");
      if (f.length >= 3) {
        micros[n++] = Long.parseLong(f[2].trim());
      }
    }
    if (n == 0) {
      return Double.NaN;
    }
    Arrays.sort(micros, 0, n);
    return micros[Math.max(0, (int) Math.ceil(0.99 * n) - 1)];
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** utime + stime of process {@code pid}, in clock ticks (/proc/PID/stat fields 14 and 15). */
  static long cpuTicks(long pid) throws IOException {
    return cpuTicks(Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII));
  }

  static long cpuTicks(String stat) {
    // The command name (field 2) may hold spaces: the fields after it follow its last ')'.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** The kernel's clock ticks per second (getconf CLK_TCK), 100 when it cannot be asked. */
  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? Long.parseLong(s) : 100;
    } catch (IOException | NumberFormatException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }

  /**
   * The h2load to run: {@code SLUICE_H2LOAD} if set, else {@code h2load} on the PATH.
   *
   * @throws IllegalStateException saying how to install it, if there is none
   */
  static String h2load() {
    String set = System.getenv("SLUICE_H2LOAD");
    if (set != null && !set.isBlank()) {
      if (!new File(set).canExecute()) {
        throw new IllegalStateException("SLUICE_H2LOAD=" + set + " is not an executable file");
      }
      return set;
    }
    if (!onPath("h2load")) {
      throw new IllegalStateException("--h2load needs nghttp2's load generator h2load, which is not"
          + " on the PATH: install it (Debian/Ubuntu: apt-get install nghttp2-client) or set"
          + " SLUICE_H2LOAD=/path/to/h2load");
    }
    return "h2load";
  }

  private static String version(String h2load) {
    try {
      Process p = new ProcessBuilder(h2load, "--version").redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor(10, TimeUnit.SECONDS);
      return s.isEmpty() ? "version unknown" : s.lines().findFirst().orElse(s);
    } catch (IOException e) {
      return "version unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "version unknown";
    }
  }

  static boolean onPath(String name) {
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
}
