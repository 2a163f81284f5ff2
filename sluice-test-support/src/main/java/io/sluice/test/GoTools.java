package io.sluice.test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The Go programs some tests run against Sluice (grpcurl, grpc-health-probe, h2spec, promtool):
 * {@code .ci/run} builds them at pinned versions into {@code SLUICE_GO_BIN}; a developer may have
 * them on the PATH instead.
 */
public final class GoTools {
  private GoTools() {}

  /** {@code tool} in {@code SLUICE_GO_BIN}, else on the PATH; empty if it is in neither. */
  public static Optional<Path> find(String tool) {
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
    Optional<Path> found = find(tool);
    if (found.isPresent()) {
      return found.get();
    }
    String what = tool + " is not installed (neither in SLUICE_GO_BIN nor on the PATH): " + installHint;
    if ("true".equals(System.getenv("CI"))) {
      Assertions.fail(what + " (CI=true: .ci/run installs it, so this is a failure, not a skip)");
    }
    Assumptions.abort(what);
    throw new AssertionError("unreachable");
  }
}
