package io.sluice.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child process whose stdout lines are read into a queue by a daemon thread; stopped by its own
 * process handle ({@link #stop()}), also by a shutdown hook if the orchestrator is interrupted.
 */
final class Child {
  private static final String EOF = "\u0000EOF";
  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private int port = -1;

  /**
   * Children not yet stopped. If the orchestrator is interrupted (Ctrl-C) in the middle of a run,
   * a shutdown hook continues any it had stopped with SIGSTOP and ends them all, by pid.
   */
  private static final Set<Child> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (Child c : LIVE) {
        try {
          c.signal("CONT");
        } catch (IOException | RuntimeException e) {
          // gone already
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        c.process.destroyForcibly();
      }
    }, "bench-children-cleanup"));
  }

  private Child(Process process) {
    LIVE.add(this);
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
    Thread reader = new Thread(this::read, "bench-child-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /** The child's process id. */
  long pid() {
    return process.pid();
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
    String line = lines.poll(Orchestrator.LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (line == null) {
      throw new IllegalStateException("no output from benchmark process " + process.pid() + " for "
          + Orchestrator.LINE_TIMEOUT_SECONDS + " s");
    }
    if (line.equals(EOF)) {
      lines.add(EOF);
      throw new IllegalStateException(
          "benchmark process " + process.pid() + " ended early (see its errors above)");
    }
    return line;
  }

  /** The port of a server child's {@code LISTENING} line (read once, then remembered). */
  int listening() throws InterruptedException {
    while (port < 0) {
      String line = line();
      if (line.startsWith("LISTENING ")) {
        port = Integer.parseInt(line.substring("LISTENING ".length()).trim());
      }
    }
    return port;
  }

  long count() throws InterruptedException {
    while (true) {
      String line = line();
      if (line.startsWith("received messages: ")) {
        return Long.parseLong(line.substring("received messages: ".length()).trim());
      }
    }
  }

  /** Lines read from the child and not taken yet. */
  int queued() {
    return lines.size();
  }

  /**
   * Drops the lines the child printed so far (a kept server's counts of earlier runs); an end of
   * its output stays.
   */
  void dropQueued() {
    List<String> old = new ArrayList<>();
    lines.drainTo(old);
    if (old.contains(EOF)) {
      lines.add(EOF);
    }
  }

  /**
   * Reads counts until one is 0 (an interval in which nothing came: what an earlier client sent
   * has all been counted), at most {@code maxCounts} of them; the counts read after it are of
   * later messages only.
   */
  void awaitIdleCount(long maxCounts) throws InterruptedException {
    for (long i = 0; i < maxCounts; i++) {
      if (count() == 0) {
        return;
      }
    }
    throw new IllegalStateException("benchmark process " + process.pid() + " counted messages in "
        + maxCounts + " intervals in a row after its earlier run's client had stopped");
  }

  /**
   * Reads {@code ALLOC <bytes> CPU <ns> [P50_NS <ns> P99_NS <ns> FAILED <n>]}: returns {bytes,
   * CPU ns, p50 ns, p99 ns, failed operations}, -1 for what is missing.
   */
  long[] alloc() throws InterruptedException {
    while (true) {
      String line = line();
      if (line.startsWith("ALLOC ")) {
        String[] f = line.trim().split("\\s+");
        return new long[] {
          Long.parseLong(f[1]),
          f.length > 3 ? Long.parseLong(f[3]) : -1,
          f.length > 7 ? Long.parseLong(f[5]) : -1,
          f.length > 7 ? Long.parseLong(f[7]) : -1,
          f.length > 9 ? Long.parseLong(f[9]) : -1
        };
      }
    }
  }

  /** Asks for {@code COUNT}: returns {messages counted so far, the child's System.nanoTime()}. */
  long[] total() throws IOException, InterruptedException {
    send("COUNT");
    while (true) {
      String line = line();
      if (line.startsWith("COUNT ")) {
        String[] f = line.trim().split("\\s+");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
      }
    }
  }

  /** Sends a signal ({@code STOP}, {@code CONT}) to this process, by its own pid. */
  void signal(String signal) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
            .redirectErrorStream(true)
            .start();
    kill.getInputStream().readAllBytes();
    if (kill.waitFor() != 0 && process.isAlive()) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
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
    LIVE.remove(this);
  }
}
