package io.sluice.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * What a figure was measured on, printed beside every table the bench prints: the date (UTC), the
 * CPU model, the vCPUs, the kernel and the JDK. Figures from two machines are not comparable (the
 * same configuration has measured 2-4x apart across hosts); this line says which machine a table
 * belongs to.
 */
final class Machine {
  private Machine() {}

  /**
   * E.g. {@code 2026-12-02, Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz, 2 vCPUs, Linux
   * 6.1.0-28-amd64, JDK 25.0.3 (Eclipse Adoptium)}.
   */
  static String describe() {
    return LocalDate.now(ZoneOffset.UTC)
        + ", " + cpuModel(Path.of("/proc/cpuinfo"))
        + ", " + Runtime.getRuntime().availableProcessors() + " vCPUs"
        + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version")
        + ", JDK " + Runtime.version()
        + " (" + System.getProperty("java.vm.vendor", "unknown vendor") + ")";
  }

  /** The first {@code model name} of a /proc/cpuinfo, or "CPU model unknown". */
  static String cpuModel(Path cpuinfo) {
    try {
      for (String line : Files.readAllLines(cpuinfo, StandardCharsets.UTF_8)) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).strip().equals("model name")) {
          String model = line.substring(colon + 1).strip().replaceAll("\\s+", " ");
          if (!model.isEmpty()) {
            return model;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or not readable: say so rather than guess
    }
    return "CPU model unknown";
  }
}
