package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapHistoTest {
  @Test
  void readsTheClassRowsOfJmapOutput() {
    String histo = " num     #instances         #bytes  class name (module)\n"
        + "-------------------------------------------------------\n"
        + "   1:         50000        4000000  [B (java.base@17.0.2)\n"
        + "   2:         10000         480000  io.sluice.core.internal.Foo\n"
        + "   3:           100           4800  java.lang.String (java.base@17.0.2)\n"
        + "Total         60100        4484800\n";
    assertThat(HeapHisto.rows(histo, 2)).containsExactly(
        "1:         50000        4000000  [B (java.base@17.0.2)",
        "2:         10000         480000  io.sluice.core.internal.Foo");
    assertThat(HeapHisto.rows(histo, 25)).hasSize(3);
  }
}
