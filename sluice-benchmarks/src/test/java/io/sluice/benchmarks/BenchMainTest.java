package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The front door's argument checks, the median, and one real two-process run per interaction kind. */
class BenchMainTest {

  private static int run(ByteArrayOutputStream err, String... argv) throws Exception {
    return BenchMain.run(
        argv,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void badArgumentsAreUsageErrors() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err, "bench", "--impl", "nope")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--impl must be one of");
    err.reset();
    assertThat(run(err, "bench", "--interaction", "stream24")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interaction must be one of");
    err.reset();
    assertThat(run(err, "bench", "--size", "-1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--size must be in");
    err.reset();
    assertThat(run(err, "bench", "--frobnicate")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option --frobnicate");
    err.reset();
    assertThat(run(err, "bench", "--compare", "--compare-flavors")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("exclude each other");
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(Orchestrator.median(List.of(5L, 1L, 3L))).isEqualTo(3);
    assertThat(Orchestrator.median(List.of(4L, 1L, 3L, 2L))).isEqualTo(2);
    assertThat(Orchestrator.median(List.of())).isZero();
  }

  /** Starts real server and client JVMs; asserts messages flowed and a RESULT line came out. */
  @Test
  @Timeout(120) // hang guard only
  void sluiceStreamAndRequestResponseRunEndToEnd() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Orchestrator o = new Orchestrator(new PrintStream(out, true, StandardCharsets.UTF_8));
    Orchestrator.Result stream = o.throughput("sluice", "stream", 8, 512, 1, 2);
    Orchestrator.Result rr = o.throughput("sluice", "rr", 8, 64, 1, 2);
    assertThat(stream.median()).isPositive();
    assertThat(rr.median()).isPositive();
    assertThat(stream.bytesPerMessage()).isGreaterThanOrEqualTo(0);
    assertThat(stream.serverCpuNanosPerMessage()).isPositive();
    assertThat(stream.clientCpuNanosPerMessage()).isPositive();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("RESULT impl=sluice interaction=stream size=8 msgs_per_sec=")
        .contains("RESULT impl=sluice interaction=rr size=8 msgs_per_sec=");
  }
}
