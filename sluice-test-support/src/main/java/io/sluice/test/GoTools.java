package io.sluice.test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The Go programs some tests run against Sluice (grpcurl, grpc-health-probe, h2spec, metricslint):
 * {@code .ci/run} builds them at pinned versions into {@code SLUICE_GO_BIN}; a developer may have
 * them on the PATH instead. CI builds them beside the tests and names the file it writes when done
 * in {@code SLUICE_GO_TOOLS_DONE}: until it is there, {@link #find} waits (at most {@link
 * #BUILD_WAIT} in all, per test JVM).
 */
public final class GoTools {
  private GoTools() {}

  /** The longest {@link #find} waits for CI's build of the tools, in all (a hang guard). */
  static final Duration BUILD_WAIT = Duration.ofMinutes(20);

  /** When the wait for CI's build ends, set by the first {@link #find}; 0 before that. */
  private static long buildWaitEnd;

  /**
   * Waits until CI's build of the tools has ended, if one is under way: from the first call on, at
   * most {@link #BUILD_WAIT}, so that later calls after a build that never ended do not wait again.
   * Returns what went wrong with that build, for a missing tool's message ("" if nothing did).
   */
  private static synchronized String awaitBuild() {
    String done = System.getenv("SLUICE_GO_TOOLS_DONE");
    if (done == null || done.isEmpty()) {
      return "";
    }
    if (buildWaitEnd == 0) {
      buildWaitEnd = System.nanoTime() + BUILD_WAIT.toNanos();
    }
    Path marker = Path.of(done);
    try {
      while (!Files.exists(marker) && System.nanoTime() - buildWaitEnd < 0) {
        Thread.sleep(250);
      }
      if (!Files.exists(marker)) {
        return "; CI's build of the Go tools had not ended after " + BUILD_WAIT.toMinutes() + " minutes of waiting (" + done + ")";
      }
      String status = Files.readString(marker).strip();
      return status.equals("0") ? "" : "; CI's build of the Go tools failed (status " + status + ": see the go-tools stage's log)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "; interrupted while waiting for CI's build of the Go tools";
    } catch (java.io.IOException e) {
      return "; CI's build status could not be read: " + e;
    }
  }

  /** {@code tool} in {@code SLUICE_GO_BIN}, else on the PATH; empty if it is in neither. */
  public static Optional<Path> find(String tool) {
    awaitBuild();
    return lookUp(tool);
  }

  /** {@code tool} in {@code SLUICE_GO_BIN}, else on the PATH, without waiting for a build. */
  private static Optional<Path> lookUp(String tool) {
    Set<String> dirs = new LinkedHashSet<>();
    String goBin = System.getenv("SLUICE_GO_BIN");
    if (goBin != null && !goBin.isEmpty()) {
      dirs.add(goBin);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code tool}, or the calling test is skipped, naming {@code installHint}; with {@code CI=true}
   * it fails instead, since {@code .ci/run} installs every tool this is asked for.
   */
  public static Path require(String tool, String installHint) {
    String build = awaitBuild();
    Optional<Path> found = lookUp(tool);
    if (found.isPresent()) {
      return found.get();
    }
    String what = tool + " is not installed (neither in SLUICE_GO_BIN nor on the PATH" + build + "): " + installHint;
    if ("true".equals(System.getenv("CI"))) {
      Assertions.fail(what + " (CI=true: .ci/run installs it, so this is a failure, not a skip)");
    }
    Assumptions.abort(what);
    throw new AssertionError("unreachable");
  }
}
