package io.sluice.benchmarks.scale;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of a scale run: commands on its stdin, its stdout read line by line by a daemon
 * thread, its stderr passed through. Stopped by its own process handle (closing stdin, then
 * SIGTERM, then SIGKILL), also by a shutdown hook if the orchestrator is interrupted.
 */
final class ScaleProcess implements AutoCloseable {
  private static final String EOF = "\u0000EOF";
  private static final Set<ScaleProcess> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (ScaleProcess p : LIVE) {
        p.process.destroyForcibly();
      }
    }, "scale-children-cleanup"));
  }

  private final String name;
  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ScaleProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    LIVE.add(this);
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
    Thread reader = new Thread(this::read, "scale-" + name + "-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static ScaleProcess start(String name, List<String> command) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return new ScaleProcess(name, pb.start());
  }

  long pid() {
    return process.pid();
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      // ended
    }
    lines.add(EOF);
  }

  void send(String command) throws IOException {
    stdin.write(command + "\n");
    stdin.flush();
  }

  /** The next stdout line starting with {@code prefix} (others are skipped), within the timeout. */
  String await(String prefix, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException("the scale " + name + " (pid " + process.pid()
            + ") printed no " + prefix.trim() + " line within " + timeoutSeconds + " s");
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new IllegalStateException("the scale " + name + " (pid " + process.pid()
            + ") ended early (see its errors above)");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Sends {@code command} and returns the answer line starting with {@code prefix}. */
  String ask(String command, String prefix, long timeoutSeconds)
      throws IOException, InterruptedException {
    send(command);
    return await(prefix, timeoutSeconds);
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException e) {
      // gone already
    }
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
    LIVE.remove(this);
  }
}
