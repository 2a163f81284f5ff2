package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A counting child kept for another run (a smoke orchestrator's fnf server) still has the counts
 * it printed for the earlier run queued, and may still be counting that run's last messages: the
 * next run reads only what it counted after an interval with nothing.
 */
class ChildCountsTest {

  @Test
  @Timeout(120) // hang guard only
  void aKeptCounterIsReadFromItsFirstIdleIntervalOn() throws Exception {
    // A stand-in server: counts of the earlier run (one of them 0), then, once told, the earlier
    // client's last messages, an interval with none, and the new run's first count.
    Child c =
        Child.start(
            List.of(
                "sh",
                "-c",
                "printf 'received messages: 900\\nreceived messages: 0\\nreceived messages: 900\\n';"
                    + " read go;"
                    + " printf 'received messages: 40\\nreceived messages: 0\\nreceived messages: 7\\n';"
                    + " cat >/dev/null"));
    try {
      for (int i = 0; i < 3000 && c.queued() < 3; i++) {
        Thread.sleep(10);
      }
      assertThat(c.queued()).isEqualTo(3);
      c.dropQueued();
      c.send("GO");
      c.awaitIdleCount(10);
      assertThat(c.count()).isEqualTo(7);
    } finally {
      c.stop();
    }
  }

  @Test
  @Timeout(120) // hang guard only
  void aCounterThatNeverGoesIdleIsAnError() throws Exception {
    Child c =
        Child.start(
            List.of("sh", "-c", "for i in 1 2 3 4 5; do echo 'received messages: 5'; done; cat >/dev/null"));
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.awaitIdleCount(5))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("5 intervals in a row");
    } finally {
      c.stop();
    }
  }

  /**
   * Two fnf smoke runs of one impl share a kept server (one server JVM, two client JVMs): the
   * second reads its own counts (after an idle interval of the server, its start-up zeros
   * skipped) and both come out with messages counted.
   */
  @Test
  @Timeout(300) // hang guard only: 3 JVMs
  void twoFnfSmokeRunsOnAKeptServerBothCountTheirMessages() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    try (Orchestrator o = Orchestrator.smoke(out)) {
      for (int run = 0; run < 2; run++) {
        Orchestrator.Result r = o.throughput("sluice", "fnf", 8, 64, 0, 1);
        assertThat(r.median()).as("run %d: %s", run, bytes).isPositive();
      }
    }
  }
}
