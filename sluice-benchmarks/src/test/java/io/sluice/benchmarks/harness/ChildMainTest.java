package io.sluice.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The child's {@code LATENCY} line stays per second whatever the counting interval. */
class ChildMainTest {

  @Test
  void opsPerSecondOfAnyIntervalIsPerSecondRoundedDown() {
    Histogram h = new Histogram(3);
    h.recordValueWithCount(100_000, 1000); // 1000 streams at 100 µs
    // One smoke interval of 100 ms: 1000 in a tenth of a second.
    assertThat(ChildMain.latencyLine(h, TimeUnit.MILLISECONDS.toNanos(100)))
        .isEqualTo("LATENCY p50_us=100.0 p95_us=100.0 p99_us=100.0 ops_per_sec=10000");
    // Whole seconds read as before: 1000 over 3 s is 333 a second.
    assertThat(ChildMain.latencyLine(h, 3)).endsWith(" ops_per_sec=333");
    assertThat(ChildMain.latencyLine(h, TimeUnit.SECONDS.toNanos(3))).endsWith(" ops_per_sec=333");
    assertThat(ChildMain.latencyLine(h, 4)).endsWith(" ops_per_sec=250");
  }
}
