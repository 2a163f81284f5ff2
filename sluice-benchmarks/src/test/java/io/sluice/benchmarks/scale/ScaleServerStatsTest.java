package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.benchmarks.harness.ScaleServerStats;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ScaleServerStatsTest {
  @Test
  void percentilesOfTheWindowInNanoseconds() {
    Histogram h = new Histogram(3);
    for (long ms = 1; ms <= 1000; ms++) {
      h.recordValue(ms * 1_000_000);
    }
    Map<String, String> f = ScaleLine.fields(
        ScaleServerStats.report(1_000_000_000L, 5, 6, 1000, h, 2, 3, 4, 7));
    // 3 significant digits: within 0.1 %
    assertThat(Long.parseLong(f.get("p50_ns"))).isBetween(499_500_000L, 500_500_000L);
    assertThat(Long.parseLong(f.get("p99_ns"))).isBetween(989_000_000L, 991_000_000L);
    assertThat(Long.parseLong(f.get("p999_ns"))).isBetween(998_000_000L, 1_000_000_000L);
    assertThat(f).containsEntry("msgs", "1000").containsEntry("cpu_ns", "5")
        .containsEntry("alloc_bytes", "6").containsEntry("connections", "2")
        .containsEntry("streams", "3").containsEntry("failed", "4").containsEntry("rss_kb", "7");
  }

  @Test
  void emptyWindowHasNoPercentiles() {
    Map<String, String> f =
        ScaleLine.fields(ScaleServerStats.report(1, 0, 0, 0, new Histogram(3), 0, 0, 0, 0));
    assertThat(f).containsEntry("p50_ns", "-1").containsEntry("p999_ns", "-1");
  }

  @Test
  void answersTheOrchestrator() throws Exception {
    ScaleServerStats stats = new ScaleServerStats();
    stats.connection(1);
    stats.streamOpened();
    stats.streamOpened();
    stats.streamEnded(true);
    stats.delivered(System.nanoTime());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    stats.serve(new ByteArrayInputStream(
        "REPORT\nPID\nNOPE\nMARK\nREPORT\n".getBytes(StandardCharsets.US_ASCII)), out);
    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    assertThat(lines).hasSize(4);
    Map<String, String> f = ScaleLine.fields(lines[0]);
    assertThat(lines[0]).startsWith("SCALE_REPORT ");
    assertThat(f).containsEntry("msgs", "1").containsEntry("connections", "1")
        .containsEntry("streams", "1").containsEntry("failed", "1");
    assertThat(Long.parseLong(f.get("p50_ns"))).isNotNegative();
    assertThat(lines[1]).isEqualTo("SCALE_PID " + ProcessHandle.current().pid());
    assertThat(lines[2]).startsWith("SCALE_ERROR unknown command");
    // after MARK: nothing new, no latency
    assertThat(ScaleLine.fields(lines[3])).containsEntry("msgs", "0").containsEntry("failed", "0")
        .containsEntry("p50_ns", "-1").containsEntry("streams", "1");
  }
}
