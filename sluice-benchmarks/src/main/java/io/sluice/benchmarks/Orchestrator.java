package io.sluice.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs one benchmark as two child processes on 127.0.0.1 — the server pinned to CPU 0 and the
 * client to CPU 1 with {@code taskset} when it exists and the machine has two CPUs — and turns their
 * output into one {@code RESULT} line. Children are stopped by their own process handles.
 */
final class Orchestrator {
  private static final long LINE_TIMEOUT_SECONDS = 60;

  /** The outcome of one throughput run. */
  record Result(
      String impl,
      String interaction,
      int size,
      int window,
      long median,
      double bytesPerMessage,
      double serverCpuNanosPerMessage,
      double clientCpuNanosPerMessage) {}

  private final PrintStream out;
  private final boolean pin;

  Orchestrator(PrintStream out) {
    this.out = out;
    this.pin = Runtime.getRuntime().availableProcessors() >= 2 && onPath("taskset");
  }

  boolean pinned() {
    return pin;
  }

  Result throughput(
      String impl, String interaction, int size, int window, int warmup, int seconds)
      throws IOException, InterruptedException {
    Child server = null;
    Child client = null;
    try {
      server = Child.start(command(impl, 0, true, "server", "--impl", impl,
          "--interaction", interaction, "--size", String.valueOf(size)));
      int port = server.listening();
      client = Child.start(command(impl, 1, false, "client", "--impl", impl,
          "--interaction", interaction, "--size", String.valueOf(size),
          "--port", String.valueOf(port), "--window", String.valueOf(window),
          // For fnf the server counts; the client sends a little longer than it is read, and
          // always outlives the last count long enough to answer REPORT.
          "--seconds", String.valueOf(warmup + seconds + (interaction.equals("fnf") ? 5 : 3))));
      Child counting = interaction.equals("fnf") ? server : client;
      if (warmup == 0) {
        server.send("MARK");
        client.send("MARK");
      }
      List<Long> samples = new ArrayList<>();
      for (int s = 0; s < warmup + seconds; s++) {
        long n = counting.count();
        boolean warm = s < warmup;
        out.println("received messages: " + n + (warm ? " (warm-up)" : ""));
        out.flush();
        if (warm && s == warmup - 1) {
          server.send("MARK");
          client.send("MARK");
        } else if (!warm) {
          samples.add(n);
        }
      }
      server.send("REPORT");
      client.send("REPORT");
      long[] serverStats = server.alloc();
      long[] clientStats = client.alloc();
      long total = samples.stream().mapToLong(Long::longValue).sum();
      double perMessage = total == 0 ? Double.NaN : (double) serverStats[0] / total;
      double serverCpu = total == 0 || serverStats[1] < 0 ? Double.NaN : (double) serverStats[1] / total;
      double clientCpu = total == 0 || clientStats[1] < 0 ? Double.NaN : (double) clientStats[1] / total;
      Result r = new Result(
          impl, interaction, size, window, median(samples), perMessage, serverCpu, clientCpu);
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
      if (server != null) {
        server.stop();
      }
    }
  }

  /** Runs one latency case and prints its {@code LATENCY} line; returns that line. */
  String latency(String impl, String interaction, int size, int concurrency, int warmup, int seconds)
      throws IOException, InterruptedException {
    Child server = null;
    Child client = null;
    try {
      server = Child.start(command(impl, 0, true, "server", "--impl", impl,
          "--interaction", interaction, "--size", String.valueOf(size)));
      int port = server.listening();
      client = Child.start(command(impl, 1, false, "client", "--impl", impl,
          "--interaction", interaction, "--size", String.valueOf(size),
          "--port", String.valueOf(port), "--latency", "--concurrency", String.valueOf(concurrency),
          "--warmup", String.valueOf(warmup), "--seconds", String.valueOf(seconds)));
      while (true) {
        String line = client.line();
        if (line.startsWith("LATENCY ")) {
          String result = "LATENCY impl=" + impl + " interaction=" + interaction + " size=" + size
              + " concurrency=" + concurrency + " " + line.substring("LATENCY ".length());
          out.println(result);
          out.flush();
          return result;
        }
        out.println(line);
        out.flush();
      }
    } finally {
      if (client != null) {
        client.stop();
      }
      if (server != null) {
        server.stop();
      }
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

  private List<String> command(String impl, int cpu, boolean server, String... args) {
    List<String> cmd = new ArrayList<>();
    if (pin) {
      cmd.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
    }
    cmd.add(Path.javaBinary());
    // The same heap settings for every impl; extra options from the environment (e.g. JFR).
    cmd.add("-Xms1g");
    cmd.add("-Xmx1g");
    split(System.getenv("SLUICE_BENCH_JAVA_OPTS"), cmd);
    if (server) {
      split(System.getenv("SLUICE_BENCH_SERVER_OPTS"), cmd);
    } else {
      split(System.getenv("SLUICE_BENCH_CLIENT_OPTS"), cmd);
    }
    if (impl.equals("rsocket-java") || impl.equals("spring-rsocket")) {
      String jar = System.getProperty("sluice.bench.peers", "benchmarks/peers-rsocket/target/peers-rsocket.jar");
      if (!new File(jar).isFile()) {
        throw new IllegalStateException(
            "the rsocket-java / Spring RSocket peer jar is missing: " + jar
                + " (./sluice bench builds it; or mvn -f benchmarks/peers-rsocket/pom.xml package)");
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

  /** A child process whose stdout lines are read into a queue by a daemon thread. */
  private static final class Child {
    private static final String EOF = "\u0000EOF";
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private Child(Process process) {
      this.process = process;
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
      Thread reader = new Thread(this::read, "bench-child-" + process.pid());
      reader.setDaemon(true);
      reader.start();
    }

    static Child start(List<String> command) throws IOException {
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
      return new Child(pb.start());
    }

    private void read() {
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the process ended
      }
      lines.add(EOF);
    }

    String line() throws InterruptedException {
      String line = lines.poll(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (line == null) {
        throw new IllegalStateException("no output from benchmark process " + process.pid() + " for "
            + LINE_TIMEOUT_SECONDS + " s");
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new IllegalStateException(
            "benchmark process " + process.pid() + " ended early (see its errors above)");
      }
      return line;
    }

    int listening() throws InterruptedException {
      while (true) {
        String line = line();
        if (line.startsWith("LISTENING ")) {
          return Integer.parseInt(line.substring("LISTENING ".length()).trim());
        }
      }
    }

    long count() throws InterruptedException {
      while (true) {
        String line = line();
        if (line.startsWith("received messages: ")) {
          return Long.parseLong(line.substring("received messages: ".length()).trim());
        }
      }
    }

    /** Reads {@code ALLOC <bytes> CPU <ns>}: returns {bytes, ns}. */
    long[] alloc() throws InterruptedException {
      while (true) {
        String line = line();
        if (line.startsWith("ALLOC ")) {
          String[] f = line.trim().split("\\s+");
          return new long[] {Long.parseLong(f[1]), f.length > 3 ? Long.parseLong(f[3]) : -1};
        }
      }
    }

    void send(String command) throws IOException {
      stdin.write(command + "\n");
      stdin.flush();
    }

    void stop() throws InterruptedException {
      try {
        stdin.close();
      } catch (IOException e) {
        // already gone
      }
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
