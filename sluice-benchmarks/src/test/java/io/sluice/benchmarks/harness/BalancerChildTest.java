package io.sluice.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The priming before the load of {@code ./sluice bench --balancer}'s client. */
class BalancerChildTest {

  /** Answers call i with server id i % ids, every third call failed. */
  private static final class Turns implements BalancerStrategy {
    final int ids;
    int calls;

    Turns(int ids) {
      this.ids = ids;
    }

    @Override
    public void call(Done done) {
      int i = calls++;
      if (i % 3 == 2) {
        done.fail(new IllegalStateException("failed on purpose"));
      } else {
        done.complete(i % ids);
      }
    }

    @Override
    public void close() {}
  }

  @Test
  void primingStopsOnceEveryServerAnswered() throws Exception {
    Turns strategy = new Turns(4);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BalancerChild.prime(strategy, 4, new PrintStream(out, true, StandardCharsets.UTF_8));
    // Ids 0, 1, (2 failed), 3, 0, (1 failed), 2: every server after 7 calls.
    assertThat(strategy.calls).isEqualTo(7);
    assertThat(out.toString(StandardCharsets.UTF_8).strip())
        .isEqualTo("primed: 7 calls one at a time, 2 failed, 4 of 4 servers answered");
  }

  @Test
  void primingIsBoundedWhenAServerNeverAnswers() throws Exception {
    Turns strategy = new Turns(3); // ids 0 and 1 only: every call of id 2 fails, 3 never comes
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BalancerChild.prime(strategy, 4, new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(strategy.calls).isEqualTo(BalancerChild.PRIME_CALLS);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("2 of 4 servers answered");
  }
}
