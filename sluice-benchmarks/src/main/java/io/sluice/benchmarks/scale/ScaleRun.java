package io.sluice.benchmarks.scale;

import io.sluice.benchmarks.BenchMain;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One scale run: a server JVM ({@code impl}'s, pinned to CPU 0) and Sluice's scale client JVM
 * (CPU 1) on loopback; the client opens connections step by step, each step measured for {@link
 * #STEP_SECONDS} after {@link #SETTLE_SECONDS} and printed as a {@code STEP} line, the last step
 * held for the hold time and printed again as the {@code RESULT scale} line. Both children are
 * stopped by pid when it ends, also on failure.
 */
final class ScaleRun {
  static final int SETTLE_SECONDS = 2;
  static final int STEP_SECONDS = 5;
  /** Server and client heap limit: a million streams need more than the usual 1 GB. */
  static final String HEAP = "-Xmx4g";

  private final PrintStream out;
  private final boolean pin;

  ScaleRun(PrintStream out) {
    this.out = out;
    this.pin = Runtime.getRuntime().availableProcessors() >= 2 && onPath("taskset");
  }

  boolean pinned() {
    return pin;
  }

  /**
   * Runs {@code impl}'s server with {@code perConnection} streams on each connection, stepping
   * through {@code steps} connection counts; returns the figures of every step, the last held
   * {@code holdSeconds}.
   */
  List<ScaleLine> run(String impl, List<Integer> steps, int perConnection, double rate,
      int holdSeconds, boolean heapHisto) throws IOException, InterruptedException {
    int max = steps.get(steps.size() - 1);
    checkFileLimit(max);
    int addresses = ScaleAddresses.needed(max);
    List<ScaleLine> lines = new ArrayList<>();
    try (ScaleProcess server = ScaleProcess.start("server",
            command(impl, 0, true, "scale-server", "--addresses", String.valueOf(addresses)))) {
      int port = Integer.parseInt(
          server.await("SCALE_LISTENING ", 60).substring("SCALE_LISTENING ".length()).trim());
      try (ScaleProcess client = ScaleProcess.start("client",
              command("sluice", 1, false, "scale-client", "--port", String.valueOf(port),
                  "--addresses", String.valueOf(addresses),
                  "--streams-per-connection", String.valueOf(perConnection),
                  "--rate", String.valueOf(rate)))) {
        out.println("# scale impl=" + impl + " server pid " + server.pid() + ", client pid "
            + client.pid() + (pin ? ", pinned to CPU 0 / CPU 1" : ", not pinned")
            + "; port " + port + " on " + addresses + " address(es)");
        out.flush();
        for (int i = 0; i < steps.size(); i++) {
          int c = steps.get(i);
          boolean last = i == steps.size() - 1;
          String opened = client.ask("OPEN " + c, "SCALE_OPENED ", 120 + c / 20);
          long streams = Long.parseLong(ScaleLine.fields(opened).get("streams"));
          TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
          server.send("MARK");
          client.send("MARK");
          TimeUnit.SECONDS.sleep(last ? holdSeconds : STEP_SECONDS);
          String report = server.ask("REPORT", "SCALE_REPORT ", 60);
          String sent = client.ask("REPORT", "SCALE_CLIENT ", 60);
          String heap = server.ask("GC", "SCALE_HEAP ", 120);
          ScaleLine line = ScaleLine.of(
              Integer.parseInt(ScaleLine.fields(opened).get("connections")), streams, report, heap,
              sent);
          lines.add(line);
          out.println(line.step(i + 1, steps.size()) + clientFigures(sent, report) + " load1="
              + loadAverage());
          out.flush();
        }
        if (heapHisto) {
          HeapHisto.print(server.pid(), lines.get(lines.size() - 1).connections(), out);
        }
        out.println(lines.get(lines.size() - 1).result());
        out.flush();
      }
    }
    return lines;
  }

  /**
   * What the client did in the window ({@code client_sent_per_sec}, {@code client_cpu_pct}, {@code
   * client_skipped}): a client near 100 % CPU, or sending less than asked, limits the run.
   */
  static String clientFigures(String client, String report) {
    java.util.Map<String, String> c = ScaleLine.fields(client);
    double seconds = Long.parseLong(ScaleLine.fields(report).get("wall_ns")) / 1e9;
    long cpu = Long.parseLong(c.getOrDefault("cpu_ns", "-1"));
    return String.format(java.util.Locale.ROOT,
        " client_sent_per_sec=%.0f client_cpu_pct=%.1f client_skipped=%s",
        Long.parseLong(c.get("sent")) / seconds, cpu < 0 ? Double.NaN : cpu / 1e7 / seconds,
        c.get("skipped"));
  }

  /** The 1-minute load average (how busy the shared machine was), or "?". */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /** Fails clearly when this process (and so its children) may not open enough sockets. */
  static void checkFileLimit(int connections) {
    long[] limit = fileLimit();
    long needed = connections + 512L;
    if (limit != null && limit[0] < needed) {
      throw new IllegalStateException("a scale run of " + connections + " connections needs about "
          + needed + " open files per process; this one may open " + limit[0] + " (hard limit "
          + limit[1] + "): raise it with 'ulimit -n " + needed + "' before ./sluice bench"
          + (limit[1] < needed ? " (above the hard limit: as root, or in /etc/security/limits.conf)" : ""));
    }
  }

  /** {soft, hard} open-file limits of this process, or null where /proc says nothing. */
  static long[] fileLimit() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/limits"), StandardCharsets.US_ASCII)) {
        if (l.startsWith("Max open files")) {
          String[] f = l.substring("Max open files".length()).trim().split("\\s+");
          return new long[] {parseLimit(f[0]), parseLimit(f[1])};
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return null;
  }

  private static long parseLimit(String s) {
    return s.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(s);
  }

  private List<String> command(String impl, int cpu, boolean server, String... args) {
    List<String> cmd = new ArrayList<>();
    if (pin) {
      cmd.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
    }
    cmd.add(javaBinary());
    cmd.add(HEAP);
    split(System.getenv("SLUICE_BENCH_JAVA_OPTS"), cmd);
    split(System.getenv(server ? "SLUICE_BENCH_SERVER_OPTS" : "SLUICE_BENCH_CLIENT_OPTS"), cmd);
    if (impl.equals("rsocket-java")) {
      String jar = System.getProperty("sluice.bench.peers",
          "peers/rsocket-java-bench/target/peers-rsocket.jar");
      if (!new File(jar).isFile()) {
        throw new IllegalStateException("the rsocket-java peer jar is missing: " + jar
            + " (./sluice bench builds it; or ./mvnw -f peers/rsocket-java-bench/pom.xml package)");
      }
      cmd.add("-jar");
      cmd.add(jar);
    } else {
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add(BenchMain.class.getName());
    }
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  static String javaBinary() {
    return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
  }

  private static void split(String opts, List<String> into) {
    if (opts != null && !opts.isBlank()) {
      into.addAll(Arrays.asList(opts.trim().split("\\s+")));
    }
  }

  private static boolean onPath(String name) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        if (new File(dir, name).canExecute()) {
          return true;
        }
      }
    }
    return false;
  }
}
