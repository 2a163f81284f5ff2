package io.sluice.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The open-loop driver of {@code ./sluice bench --balancer}: what it counts, not how fast. */
class OpenLoopTest {

  /** Answers at once, on the sending thread: call i by server i % 4, every tenth call failed. */
  private static final class Answering implements BalancerStrategy {
    int calls;
    boolean closed;

    @Override
    public void call(Done done) {
      int i = calls++;
      if (i % 10 == 9) {
        done.fail(new IllegalStateException("failed on purpose"));
      } else {
        done.complete(i % 4);
        done.complete(i % 4); // a second report of the same call is ignored
      }
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void sendsRateTimesSecondsAndCountsWhoAnsweredAndWhatFailed() throws Exception {
    Answering strategy = new Answering();
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    OpenLoop.Outcome o =
        OpenLoop.run(strategy, 4, 200, 0, 2, new PrintStream(progress, true, StandardCharsets.UTF_8));
    assertThat(strategy.calls).isEqualTo(400);
    assertThat(o.sent()).isEqualTo(400);
    assertThat(o.failed()).isEqualTo(40);
    assertThat(o.latencies().getTotalCount()).isEqualTo(360);
    // Calls 0..399, id i % 4, but the failed ones (9, 19, 29, ...: ids 1 and 3 in turn).
    assertThat(o.byServer()).containsExactly(100, 80, 100, 80);
    assertThat(o.line()).startsWith("BALANCER sent=400 completed=360 failed=40 p50_ns=")
        .endsWith(" by_server=100,80,100,80");
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("second 1: completed ");
  }

  @Test
  void warmUpCallsAreNotMeasured() throws Exception {
    Answering strategy = new Answering();
    OpenLoop.Outcome o =
        OpenLoop.run(strategy, 4, 100, 1, 1,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(strategy.calls).isEqualTo(200);
    assertThat(o.sent()).isEqualTo(100);
    assertThat(o.failed()).isEqualTo(10);
    // Calls 100..199 measured, id i % 4, but the failed ones (109, 119, ...: ids 1 and 3).
    assertThat(o.byServer()).containsExactly(25, 20, 25, 20);
  }

  @Test
  void anAnswerFromAnUnknownServerIsAFailure() throws Exception {
    BalancerStrategy wrongId =
        new BalancerStrategy() {
          @Override
          public void call(Done done) {
            done.complete(7);
          }

          @Override
          public void close() {}
        };
    OpenLoop.Outcome o =
        OpenLoop.run(wrongId, 4, 100, 0, 1,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(o.failed()).isEqualTo(100);
    assertThat(o.latencies().getTotalCount()).isZero();
    assertThat(o.line()).contains(" p50_ns=-1 ");
  }

  @Test
  void atMostTenSecondsOfCallsAreOutstanding() {
    assertThat(OpenLoop.maxInFlight(1)).isEqualTo(1000);
    assertThat(OpenLoop.maxInFlight(2000)).isEqualTo(20_000);
  }
}
