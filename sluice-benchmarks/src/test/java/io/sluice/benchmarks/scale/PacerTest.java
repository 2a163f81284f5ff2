package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PacerTest {
  private static final long MS = 1_000_000L;

  @Test
  void spreadsTheRateOverTicks() {
    Pacer p = new Pacer(1.0, 0);
    long total = 0;
    int max = 0;
    for (int t = 1; t <= 100; t++) { // one second of 10 ms ticks
      int n = p.due(t * 10 * MS, 100_000);
      total += n;
      max = Math.max(max, n);
    }
    assertThat(total).isBetween(99_999L, 100_000L);
    assertThat(max).isBetween(999, 1001);
  }

  @Test
  void fractionalRatesAccumulate() {
    Pacer p = new Pacer(0.1, 0);
    long total = 0;
    for (int t = 1; t <= 1000; t++) { // ten seconds
      total += p.due(t * 10 * MS, 10);
    }
    assertThat(total).isBetween(9L, 10L);
  }

  @Test
  void aLateTickCatchesUpAtMostOneSecond() {
    Pacer p = new Pacer(2.0, 0);
    assertThat(p.due(5_000 * MS, 100)).isEqualTo(200);
    assertThat(p.due(5_010 * MS, 100)).isBetween(1, 2);
  }

  @Test
  void noStreamsNothingDue() {
    Pacer p = new Pacer(1.0, 0);
    assertThat(p.due(1_000 * MS, 0)).isZero();
    assertThatThrownBy(() -> new Pacer(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
