package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SweepTableTest {
  private static ScaleLine line(int connections, long streams, double heapMb, double rssMb,
      long msgs, long cpuNanos, long allocBytes) {
    return new ScaleLine(connections, streams, msgs, 10, heapMb, rssMb, 1, 1, 2, 3, 0, msgs,
        cpuNanos, allocBytes);
  }

  @Test
  void derivesCostsPerConnectionPerStreamAndPerMessage() {
    Map<Integer, List<ScaleLine>> runs = new LinkedHashMap<>();
    runs.put(0, List.of(line(1, 0, 10, 100, 0, 0, 0), line(1001, 0, 20, 120, 0, 0, 0)));
    runs.put(10, List.of(line(1001, 10_010, 30, 150, 1000, 2_000_000, 64_000)));
    List<String> rows = SweepTable.rows(runs);
    assertThat(rows).hasSize(5);
    assertThat(rows.get(0)).isEqualTo(SweepTable.HEADER);
    // idle: (20 - 10) MB over 1000 more connections = 10.24 KiB; RSS 20 MB / 1000 = 20.5 KiB
    assertThat(rows.get(3)).startsWith("| 0 | 1001 | 0 | 0 | 10.0 | 20.0 | 120.0 | 10.24 | 20.5 |  |");
    // streams: (30 - 20) MB over 10,010 streams = 1048 B; 2 µs and 64 B per message
    assertThat(rows.get(4)).isEqualTo(
        "| 10 | 1001 | 10010 | 1000 | 10.0 | 30.0 | 150.0 |  |  | 1048 | 2.00 | 64 | 2.00 | 0 |");
  }

  @Test
  void idleHeapBetweenStepsIsInterpolated() {
    List<ScaleLine> idle = List.of(line(1000, 0, 14, 0, 0, 0, 0), line(2000, 0, 24, 0, 0, 0, 0));
    assertThat(SweepTable.idleHeapMb(idle, 1000)).isEqualTo(14.0);
    assertThat(SweepTable.idleHeapMb(idle, 1500)).isEqualTo(19.0);
    assertThat(SweepTable.idleHeapMb(idle, 3000)).isNaN();
    assertThat(SweepTable.idleHeapMb(idle, 10)).isNaN();
  }
}
