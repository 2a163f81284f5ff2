package io.sluice.balancer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link ChildServer} in a JVM of its own, with this JVM's class path. */
final class ChildProcess implements AutoCloseable {
  final String name;
  final int port;
  private final Process process;

  ChildProcess(String name, int port, long delayMicros) throws Exception {
    this.name = name;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx128m",
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ChildServer.class.getName(),
                    name,
                    String.valueOf(port),
                    String.valueOf(delayMicros)))
            .redirectErrorStream(true)
            .start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                  if (!line.startsWith("LISTENING ")) {
                    System.err.println("[" + name + "] " + line);
                  }
                }
              } catch (Exception e) {
                // gone
              }
            },
            "child-" + name);
    reader.setDaemon(true);
    reader.start();
    String line;
    do {
      line = lines.poll(60, TimeUnit.SECONDS);
      if (line == null) {
        process.destroyForcibly();
        throw new AssertionError(name + " did not start (alive: " + process.isAlive() + ")");
      }
    } while (!line.startsWith("LISTENING "));
    this.port = Integer.parseInt(line.substring("LISTENING ".length()).trim());
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  /** SIGKILL: no goodbye, connections reset by the kernel. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM: the shutdown hook stops the server gracefully (LEASE 0, CONNECTION_CLOSE, drain). */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not stop within 30 s");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
