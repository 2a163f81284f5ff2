package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogBudgetTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void writesTheFirstOfEachWindowAndCountsTheRest() {
    LogBudget b = new LogBudget(3, 10 * SECOND);
    List<Long> got = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      got.add(b.admit(5 * SECOND + i));
    }
    assertThat(got.subList(0, 3)).containsOnly(0L);
    assertThat(got.subList(3, 1_000)).containsOnly(LogBudget.SUPPRESSED);
    // The next window writes again, and its first message says how many were left out.
    assertThat(b.admit(15 * SECOND)).isEqualTo(997);
    assertThat(b.admit(15 * SECOND + 1)).isZero();
  }

  @Test
  void aQuietLogWritesEverything() {
    LogBudget b = new LogBudget(3, 10 * SECOND);
    for (int i = 0; i < 10; i++) {
      assertThat(b.admit(i * 4 * SECOND)).isZero();
    }
  }

  @Test
  void nanoTimeMayBeNegative() {
    LogBudget b = new LogBudget(1, SECOND);
    assertThat(b.admit(Long.MIN_VALUE + 5)).isZero();
    assertThat(b.admit(Long.MIN_VALUE + 6)).isEqualTo(LogBudget.SUPPRESSED);
    assertThat(b.admit(Long.MIN_VALUE + 5 + SECOND)).isEqualTo(1);
  }

  @Test
  void refusesANonsenseBudget() {
    assertThatThrownBy(() -> new LogBudget(0, SECOND)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LogBudget(1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
