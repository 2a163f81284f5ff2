package io.sluice.browserdemo;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Debian's {@code chromium}, headless, showing one page until closed. It runs with a fresh profile
 * in a directory of the caller's, without the sandbox (tests run as root in CI), background
 * networking, component updates, sync or first-run screens, so it talks to nothing but the page's
 * server. Its output goes to a file there, for failure messages, and its scratch files (TMPDIR)
 * into that directory too.
 */
final class HeadlessChromium implements AutoCloseable {
  /** Overrides where the browser is looked for (a path to a Chromium binary). */
  static final String BINARY_ENV = "SLUICE_CHROMIUM";

  private final Process process;
  private final Path log;

  private HeadlessChromium(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** {@code $SLUICE_CHROMIUM}, else {@code chromium} on the PATH; empty if neither is there. */
  static Optional<Path> find() {
    String override = System.getenv(BINARY_ENV);
    if (override != null && !override.isBlank()) {
      Path p = Path.of(override);
      return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "chromium");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Starts {@code binary} on {@code url}, with its profile and log under {@code dir}. */
  static HeadlessChromium open(Path binary, URI url, Path dir) throws IOException {
    Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
    Path log = dir.resolve("chromium.log");
    // Its sockets and scratch files go under dir too, which the caller deletes.
    Path tmp = Files.createDirectories(dir.resolve("chromium-tmp"));
    List<String> command =
        List.of(
            binary.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--user-data-dir=" + profile,
            url.toString());
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("TMPDIR", tmp.toString());
    Process p =
        pb.redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    return new HeadlessChromium(p, log);
  }

  /** Completes when the browser's main process exits. */
  CompletableFuture<Process> exited() {
    return process.onExit();
  }

  /** The last lines the browser printed (its log can be long). */
  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Ends the browser and every process it started, and waits for them (bounded). */
  @Override
  public void close() {
    List<ProcessHandle> processes = new ArrayList<>(process.descendants().toList());
    processes.add(process.toHandle());
    processes.forEach(ProcessHandle::destroy);
    for (ProcessHandle p : processes) {
      try {
        p.onExit().get(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      } catch (ExecutionException | TimeoutException e) {
        p.destroyForcibly();
      }
    }
  }
}
