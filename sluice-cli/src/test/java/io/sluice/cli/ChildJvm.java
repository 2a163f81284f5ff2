package io.sluice.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link Main} in a JVM of its own, on this test's class path, as {@code
 * ./sluice} runs it. Set to start quickly: a child of a test measures nothing, so it compiles with
 * C1 only and collects with one thread (on a 2-core CI machine, C2's compilations and parallel GC
 * threads compete with the other modules' tests).
 */
final class ChildJvm {
  private ChildJvm() {}

  static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }
}
