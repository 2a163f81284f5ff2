package io.sluice.transport.grpc.internal.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.ConsoleFigures;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The console's own calls per second, against a clock the test moves. */
class CallFiguresTest {
  private static final long SECOND = 1_000_000_000L;

  /** A clock the test sets; starts at an arbitrary, negative, unaligned nanoTime. */
  private static final class Clock {
    long now = -7 * SECOND - 250_000_000L;
  }

  /** One call that starts and ends OK now. */
  private static void call(CallFigures figures) {
    RpcInstrumentation.CallObserver c = figures.onCallStart(null, null);
    c.onEnd(Status.OK, 1_000_000L);
  }

  /**
   * A steady 100 calls a second for 10 s, read at a point a tenth, half or nine tenths into a
   * second: 100 a second each time. Before the fix the calls of the second under way were counted
   * over the 5 whole seconds only: 102, 110 and 118.
   */
  @ParameterizedTest
  @ValueSource(ints = {100, 500, 900})
  void aSteadyRateReadsAsThatRateWhereverInTheSecondItIsRead(int millisIntoTheSecond) {
    Clock clock = new Clock();
    CallFigures figures = new CallFigures(() -> clock.now);
    long start = Math.floorDiv(clock.now, SECOND) * SECOND + SECOND; // a second's start
    clock.now = start;
    long end = start + 10 * SECOND + millisIntoTheSecond * 1_000_000L;
    int calls = 0;
    while (clock.now < end) {
      call(figures);
      calls++;
      clock.now += 10_000_000L; // 10 ms: 100 a second
    }
    clock.now = end;
    ConsoleFigures.Snapshot s = figures.snapshot();
    assertThat(s.methods()).hasSize(1);
    ConsoleFigures.MethodFigures m = s.methods().get(0);
    assertThat(m.calls()).isEqualTo(calls);
    assertThat(m.callsPerSecond()).isCloseTo(100.0, within(0.5));
    assertThat(s.callsPerSecond()).isCloseTo(100.0, within(0.5));
  }

  /** Calls ended more than the window ago no longer count; a new rate shows at once in full. */
  @ParameterizedTest
  @ValueSource(ints = {0, 300})
  void oldCallsLeaveTheWindowAndANewRateIsReadAsItIs(int offsetMillis) {
    Clock clock = new Clock();
    clock.now += offsetMillis * 1_000_000L;
    CallFigures figures = new CallFigures(() -> clock.now);
    for (int i = 0; i < 500; i++) {
      call(figures);
      clock.now += 2_000_000L; // 500 a second, for 1 s
    }
    clock.now += (CallFigures.WINDOW_SECONDS + 1) * SECOND;
    assertThat(figures.snapshot().callsPerSecond()).isZero();
    // 20 a second for 7 s: the window holds 20 a second only.
    for (int i = 0; i < 140; i++) {
      call(figures);
      clock.now += 50_000_000L;
    }
    assertThat(figures.snapshot().callsPerSecond()).isCloseTo(20.0, within(0.3));
    assertThat(figures.snapshot().methods().get(0).calls()).isEqualTo(640);
  }
}
