package io.sluice.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link HostileServerMain} in a child JVM ({@code -Xmx256m -XX:MaxDirectMemorySize=64m}, exit on
 * OutOfMemoryError, netty leak detection at {@code paranoid}: every buffer tracked, with records of
 * its creation, retains, releases and touches) with this JVM's class path. Collects its stdout:
 * replies to commands, leak reports, and the causes of connections it closed, by the peer's port.
 * {@link #assertNoLeaks} makes the server collect garbage and allocate before it asks for the leak
 * reports, so a leak in the last thing the server did is reported too (netty reports a collected,
 * unreleased buffer only when it tracks a new one).
 */
final class ServerProcess implements AutoCloseable {
  static final long HEAP_MAX = 256L << 20;
  static final long DIRECT_MAX = 64L << 20;

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final Map<Integer, String> closed = new ConcurrentHashMap<>();
  /** LEAKREPORT lines not yet taken by {@link #assertNoLeaks}. */
  private final BlockingQueue<String> leakReports = new LinkedBlockingQueue<>();
  private final Thread stdoutReader;
  private final Thread stderrReader;
  /** Leak reports and other alarming lines from the child's stderr. */
  final List<String> alarms = new CopyOnWriteArrayList<>();
  final int port;
  /**
   * The server's second listener, with the short preface deadline ({@code
   * deadlinePrefaceTimeoutMs}), or 0.
   */
  final int deadlinePort;

  ServerProcess(String... options) throws IOException, InterruptedException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java.toString());
    cmd.add("-Xmx256m");
    cmd.add("-XX:MaxDirectMemorySize=64m");
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    // Every buffer tracked. Access records only for retain/release/touch: recording every read
    // takes a stack trace per buffer access, which slows the server below the frame rates whose
    // limits the suite tests (R8 never reached 10,000 ignored frames per second that way).
    cmd.add("-Dio.netty.leakDetection.level=paranoid");
    cmd.add("-Dio.netty.leakDetection.acquireAndReleaseOnly=true");
    cmd.add("-Dio.netty.leakDetection.targetRecords=8");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(HostileServerMain.class.getName());
    cmd.addAll(List.of(options));
    process = new ProcessBuilder(cmd).start();
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    stdoutReader = new Thread(this::readStdout, "server-stdout");
    stdoutReader.setDaemon(true);
    stdoutReader.start();
    stderrReader = new Thread(this::readStderr, "server-stderr");
    stderrReader.setDaemon(true);
    stderrReader.start();
    String first = replies.poll(60, TimeUnit.SECONDS);
    assertThat(first).as("server start").isNotNull().startsWith("LISTENING ");
    String[] ports = first.substring("LISTENING ".length()).trim().split(" ");
    port = Integer.parseInt(ports[0]);
    deadlinePort = ports.length > 1 ? Integer.parseInt(ports[1]) : 0;
  }

  private void readStdout() {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("CLOSED ")) {
          String[] p = line.split(" ", 3);
          closed.put(Integer.parseInt(p[1]), p[2]);
        } else if (line.startsWith("LEAKREPORT ")) {
          leakReports.add(line.substring("LEAKREPORT ".length()));
        } else {
          replies.add(line);
        }
      }
    } catch (IOException e) {
      // process gone
    }
  }

  private void readStderr() {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        System.err.println("[server] " + line);
        if (line.contains("LEAK:") || line.contains("OutOfMemoryError")) {
          alarms.add(line);
        }
      }
    } catch (IOException e) {
      // process gone
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  private synchronized String command(String c, String replyPrefix) {
    try {
      stdin.write(c + "\n");
      stdin.flush();
      for (; ; ) {
        String reply = replies.poll(60, TimeUnit.SECONDS);
        assertThat(reply).as("reply to %s (server alive: %s)", c, isAlive()).isNotNull();
        if (reply.startsWith(replyPrefix)) {
          return reply;
        }
      }
    } catch (IOException | InterruptedException e) {
      throw new AssertionError("server did not answer " + c + " (alive: " + isAlive() + ")", e);
    }
  }

  /** Heap, direct memory, connections and streams of the server, now and peak since reset. */
  Stats stats() {
    String line = command("stats", "STATS ");
    Map<String, Long> m = new HashMap<>();
    for (String kv : line.substring("STATS ".length()).split(" ")) {
      String[] p = kv.split("=", 2);
      m.put(p[0], Long.parseLong(p[1]));
    }
    return new Stats(m);
  }

  void resetPeaks() {
    command("reset", "RESET");
  }

  /**
   * Has the server run its garbage collector and allocate (see {@link HostileServerMain}), then
   * fails with every leak netty reported since the last check; also fails unless the server's leak
   * detection level is {@code PARANOID}.
   *
   * @param after what just ran, for the failure message
   * @param closeConnections first stop accepting and close every connection (and fail if one does
   *     not close), so that whatever the connections held is garbage too; for the end of a class
   */
  void assertNoLeaks(String after, boolean closeConnections) {
    String reply = command(closeConnections ? "leakcheck close" : "leakcheck", "LEAKS ");
    // LEAKREPORT lines come before their LEAKS line on the same stream: all are queued by now.
    List<String> reports = new ArrayList<>();
    leakReports.drainTo(reports);
    Map<String, String> fields = new HashMap<>();
    String[] parts = reply.split(" ");
    for (int i = 2; i < parts.length; i++) {
      String[] kv = parts[i].split("=", 2);
      fields.put(kv[0], kv[1]);
    }
    assertThat(fields.get("level")).as("the server's leak detection level").isEqualTo("PARANOID");
    assertThat(Integer.parseInt(parts[1])).as("leak count in %s", reply).isEqualTo(reports.size());
    assertThat(reports).as("leak reports of the server after %s", after).isEmpty();
    if (closeConnections) {
      assertThat(fields.get("open")).as("connections still open after closing all").isEqualTo("0");
    }
  }

  /** The cause of the close of the connection from local port {@code port}, if it had one. */
  String closeCause(int clientPort) {
    return closed.get(clientPort);
  }

  /**
   * Forgets the close reported for an earlier connection from {@code clientPort}: for a connection
   * from that port that is open now, so that only its own close counts (ports are reused).
   */
  void forgetClose(int clientPort) {
    closed.remove(clientPort);
  }

  /** Waits (hang guard only) until the server reported the close of {@code clientPort}. */
  String awaitCloseCause(int clientPort) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end) {
      String c = closed.get(clientPort);
      if (c != null) {
        return c;
      }
      Thread.sleep(20);
    }
    return null;
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      try {
        stdin.write("quit\n");
        stdin.flush();
      } catch (IOException e) {
        // already gone
      }
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    }
    // The readers end at the end of the process's output: then every line is in alarms.
    stdoutReader.join(10_000);
    stderrReader.join(10_000);
  }

  /** One STATS reply. */
  record Stats(Map<String, Long> values) {
    long get(String key) {
      Long v = values.get(key);
      assertThat(v).as("stat %s", key).isNotNull();
      return v;
    }

    long peakHeap() {
      return get("peakHeap");
    }

    long peakDirect() {
      return get("peakDirect");
    }

    long direct() {
      return get("direct");
    }

    long heapAfterGc() {
      return get("heapAfterGc");
    }

    long connections() {
      return get("connections");
    }

    long streams() {
      return get("streams");
    }

    @Override
    public String toString() {
      return String.format(
          "peak heap %.1f MiB, heap after GC %.1f MiB, peak direct %.1f MiB, %d connections"
              + " (peak %d), %d streams",
          peakHeap() / 1048576.0,
          heapAfterGc() / 1048576.0,
          peakDirect() / 1048576.0,
          connections(),
          get("peakConnections"),
          streams());
    }
  }
}
