package io.sluice.interop;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The rsocket-java 1.1.5 peer (peers/rsocket-java-peer) as a child process. It is stopped by its
 * own handle, never by name.
 */
final class PeerProcess implements AutoCloseable {
  private final Process process;
  private final List<String> output = new ArrayList<>();
  private final Thread reader;

  private PeerProcess(Process process) {
    this.process = process;
    this.reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  synchronized (output) {
                    output.add(line);
                    output.notifyAll();
                  }
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "rsocket-java-peer-output");
    reader.setDaemon(true);
    reader.start();
  }

  static Path jar() {
    String path = System.getProperty("rsocket.peer.jar");
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException(
          "rsocket-java peer jar not found at "
              + path
              + "; build it with: ./mvnw -B -f peers/rsocket-java-peer/pom.xml package");
    }
    return Path.of(path);
  }

  static PeerProcess start(String... args) throws IOException {
    return startJar(jar(), List.of(), args);
  }

  /** Another peer jar (the Spring RSocket peer, say) as a child process, with JVM options. */
  static PeerProcess startJar(Path jar, List<String> jvmOptions, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.add("-Xmx256m");
    cmd.addAll(jvmOptions);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    return new PeerProcess(pb.start());
  }

  /** Waits (bounded: 60 s) for the server's {@code LISTENING <port>} line. */
  int awaitPort() throws InterruptedException {
    return awaitPort(60);
  }

  /** Waits (bounded) for the server's {@code LISTENING <port>} line. */
  int awaitPort(long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    synchronized (output) {
      while (true) {
        for (String line : output) {
          if (line.startsWith("LISTENING ")) {
            return Integer.parseInt(line.substring(10).trim());
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !process.isAlive() && output.isEmpty()) {
          throw new IllegalStateException("peer did not start listening: " + output);
        }
        output.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
  }

  /** Waits (bounded) for the process to exit; returns its exit code. */
  int awaitExit(long seconds) throws InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("peer did not finish within " + seconds + " s: " + output());
    }
    reader.join(5000);
    return process.exitValue();
  }

  List<String> output() {
    synchronized (output) {
      return new ArrayList<>(output);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
