package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScaleLineTest {
  static final String REPORT = "SCALE_REPORT wall_ns=2000000000 cpu_ns=500000000"
      + " alloc_bytes=20971520 msgs=200000 p50_ns=1500000 p99_ns=12000000 p999_ns=40000000"
      + " connections=1000 streams=100000 failed=0 rss_kb=524288";
  static final String HEAP = "SCALE_HEAP used_bytes=157286400 rss_kb=524288";
  static final String CLIENT = "SCALE_CLIENT sent=200000 skipped=0 failed_streams=3";

  @Test
  void resultLineHasTheFieldsInOrder() {
    ScaleLine l = ScaleLine.of(1000, 100_000, REPORT, HEAP, CLIENT);
    assertThat(l.result()).isEqualTo("RESULT scale connections=1000 streams=100000"
        + " msgs_per_sec=100000 server_cpu_pct=25.0 heap_after_gc_mb=150.0 rss_mb=512.0"
        + " alloc_mb_per_sec=10.00 p50_ms=1.50 p99_ms=12.00 p999_ms=40.00 failed_streams=3");
    assertThat(l.step(2, 4)).isEqualTo("STEP 2/4 connections=1000 streams=100000"
        + " msgs_per_sec=100000 server_cpu_pct=25.0 heap_after_gc_mb=150.0 rss_mb=512.0"
        + " alloc_mb_per_sec=10.00 p50_ms=1.50 p99_ms=12.00 failed_streams=3");
    assertThat(l.cpuMicrosPerMessage()).isEqualTo(2.5);
    assertThat(l.allocBytesPerMessage()).isEqualTo(104.8576);
  }

  @Test
  void streamsTheServerLostCountAsFailed() {
    ScaleLine l = ScaleLine.of(1000, 100_010, REPORT, HEAP, CLIENT);
    assertThat(l.failedStreams()).isEqualTo(10);
  }

  @Test
  void noMessagesMeansNoLatencyAndNoPerMessageCosts() {
    String idle = REPORT.replace("msgs=200000", "msgs=0").replace("p50_ns=1500000", "p50_ns=-1")
        .replace("p99_ns=12000000", "p99_ns=-1").replace("p999_ns=40000000", "p999_ns=-1");
    ScaleLine l = ScaleLine.of(1000, 100_000, idle, HEAP, CLIENT);
    assertThat(l.p99Ms()).isNaN();
    assertThat(l.cpuMicrosPerMessage()).isNaN();
    assertThat(l.result()).contains("p99_ms=NaN");
  }

  @Test
  void aMissingFieldSaysWhich() {
    assertThatThrownBy(() -> ScaleLine.of(1, 1, "SCALE_REPORT wall_ns=1", HEAP, CLIENT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no msgs=");
  }

  @Test
  void clientFiguresPerSecondOfTheWindow() {
    assertThat(ScaleRun.clientFigures(CLIENT + " cpu_ns=1000000000", REPORT))
        .isEqualTo(" client_sent_per_sec=100000 client_cpu_pct=50.0 client_skipped=0");
    assertThat(ScaleRun.clientFigures(CLIENT, REPORT)).contains("client_cpu_pct=NaN");
  }
}
