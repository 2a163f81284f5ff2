package io.sluice.benchmarks.many;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The client's MANY line, the RESULT line made of it, and the ratio table. */
class ManyResultTest {
  private static final ManyOptions.Shape SHAPE = new ManyOptions.Shape(32, 16);

  @Test
  void theClientsLineCarriesCountsAndPercentiles() {
    Histogram h = new Histogram(3);
    for (int i = 1; i <= 1000; i++) {
      h.recordValue(i * 1000L);
    }
    String line = ManyChildren.manyLine(h, 2, 2_000_000_000L);
    ManyResult r = ManyResult.parse("sluice", 16, SHAPE, line, 500_000_000L);
    assertThat(r.calls()).isEqualTo(1000);
    assertThat(r.failed()).isEqualTo(2);
    assertThat(r.qps()).isEqualTo(500.0);
    assertThat(r.p50Nanos()).isBetween(499_000L, 501_000L);
    assertThat(r.p99Nanos()).isBetween(989_000L, 991_000L);
    assertThat(r.p999Nanos()).isBetween(998_000L, 1_000_500L);
    assertThat(r.serverCpuMicrosPerCall()).isEqualTo(500.0);
    assertThat(r.line()).startsWith("RESULT many-connections impl=sluice connections=16"
        + " concurrency=32 response_size=16 qps=500 p50_us=").contains(" failed_calls=2 ",
        " server_cpu_us_per_call=500.00");

    ManyResult none = ManyResult.parse("grpc-java", 16, SHAPE,
        ManyChildren.manyLine(null, 0, 1_000_000_000L), -1);
    assertThat(none.line()).contains("qps=0 p50_us=n/a p99_us=n/a p999_us=n/a failed_calls=0"
        + " server_cpu_us_per_call=n/a");
    assertThatThrownBy(() -> ManyResult.parse("sluice", 16, SHAPE, "MANY calls=3", 0))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not a MANY line");
  }

  private static ManyResult result(String impl, long calls, long p99, long failed) {
    return new ManyResult(impl, 16, SHAPE, calls, failed, 1_000_000_000L, p99 / 2, p99, p99 * 2, 1);
  }

  @Test
  void theTableGivesSluicesRatiosToGrpcJava() {
    List<String> table = ManyResult.table(List.of(List.of(
        result("sluice", 300_000, 200_000, 0), result("sluice-rpc", 150_000, 400_000, 0),
        result("grpc-java", 100_000, 800_000, 3))));
    assertThat(table).hasSize(3);
    assertThat(table.get(0)).startsWith("| connections / calls in flight / answer | sluice QPS");
    assertThat(table.get(2)).isEqualTo("| 16 / 32 / 16 B | 300 k/s | 150 k/s | 100 k/s"
        + " | 3.00 (3 failed calls) | 1.50 (3 failed calls) | 200.0 | 400.0 | 800.0"
        + " | 0.25 (3 failed calls) | 0.50 (3 failed calls) |");
    ManyResult empty = result("grpc-java", 0, -1, 0);
    assertThat(ManyResult.ratio(1, 0, empty, empty)).isEqualTo("n/a");
    assertThat(ManyResult.ratio(-1, 5, empty, empty)).isEqualTo("n/a");
  }
}
