package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./sluice bench --balancer}'s argument checks, its RESULT line and its target table. */
class BalancerBenchTest {

  private static int run(ByteArrayOutputStream err, String... argv) throws Exception {
    return BenchMain.run(
        argv,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void badArgumentsAreUsageErrorsBeforeAnyProcessStarts() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err, "bench", "--rate", "100")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rate goes with --balancer");
    err.reset();
    assertThat(run(err, "bench", "--balancer", "--impl", "sluice")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--balancer takes --seconds, --warmup and --rate, not --impl");
    err.reset();
    assertThat(run(err, "bench", "--balancer", "--compare")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--balancer and --compare exclude each other");
    err.reset();
    assertThat(run(err, "bench", "--balancer", "--rate", "0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rate must be in 1..100000");
  }

  @Test
  void aClientsLineBecomesTheResultLine() {
    BalancerBench.Outcome o =
        BalancerBench.Outcome.parse(
            "round-robin",
            "BALANCER sent=1000 completed=998 failed=2 p50_ns=1605631 p99_ns=15138815"
                + " p999_ns=24395775 max_ns=26935295 by_server=250,248,250,250");
    assertThat(o.resultLine())
        .isEqualTo(
            "RESULT balancer strategy=round-robin p50_us=1606 p99_us=15139 p999_us=24396"
                + " slow_share=0.248 failed=2");
    assertThat(BalancerBench.Outcome.missing("healthy", "not available").resultLine())
        .isEqualTo(
            "RESULT balancer strategy=healthy p50_us=n/a p99_us=n/a p999_us=n/a slow_share=n/a"
                + " failed=n/a");
    assertThatThrownBy(() -> BalancerBench.Outcome.parse("x", "BALANCER sent=1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a BALANCER line");
  }

  @Test
  void theTableSaysWhichTargetsAreMetAndWhichCannotBeJudged() {
    Map<String, BalancerBench.Outcome> outcomes = new LinkedHashMap<>();
    outcomes.put("sluice-balancer", outcome("sluice-balancer", 1400, 2500, 0));
    outcomes.put("round-robin", outcome("round-robin", 15000, 24000, 0));
    outcomes.put("rsocket-java", outcome("rsocket-java", 13000, 2000, 0));
    outcomes.put("healthy", BalancerBench.Outcome.missing("healthy", "not available: x"));
    ByteArrayOutputStream table = new ByteArrayOutputStream();
    BalancerBench.table(outcomes, 2000, new PrintStream(table, true, StandardCharsets.UTF_8));
    List<String> lines = table.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines)
        .contains("| healthy | not available: x | | | | | |")
        .contains("| sluice-balancer p99 ≤ 1.5x healthy's p99 | n/a | n/a (a run is missing) |")
        .contains("| sluice-balancer p99 ≤ 1/3 of round-robin's p99 | 1400 / 15000 µs = 0.09x | met |")
        .contains("| sluice-balancer p99 < rsocket-java's p99 | 1400 / 13000 µs = 0.11x | met |")
        .contains("| sluice-balancer p99.9 < rsocket-java's p99.9 | 2500 / 2000 µs = 1.25x | missed |")
        .contains("| sluice-balancer: zero failed calls | 0 | met |")
        .contains("sluice-balancer sent 10.0 % of its calls to the slow server: its p99 is at"
            + " least that server's 10 ms on any machine (below 1 % only the p99.9 pays for them)");
    assertThat(BalancerBench.slowFloor(outcome("rsocket-java", 1, 1, 0).withShare(0.01))).isNull();
    assertThat(BalancerBench.slowFloor(outcome("healthy", 1, 1, 0))).isNull();
  }

  private static BalancerBench.Outcome outcome(String name, double p99, double p999, long failed) {
    return new BalancerBench.Outcome(name, 1000, p99, p999, 0.1, failed, 1000, null);
  }
}
