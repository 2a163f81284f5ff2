package io.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.CallObservation;
import io.sluice.rpc.RpcInstrumentation;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The combined observer asks for a first response only when one of its parts does. */
class InstrumentationsTest {
  /** An instrumentation whose observers answer {@code wants} and count the first responses they get. */
  private static RpcInstrumentation part(boolean wants, AtomicInteger firstResponses) {
    return (metadata, method) -> new RpcInstrumentation.CallObserver() {
      @Override
      public boolean observesFirstResponse() {
        return wants;
      }

      @Override
      public void onFirstResponse(long nanosSinceStart) {
        firstResponses.incrementAndGet();
      }
    };
  }

  @Test
  void partsThatAllWantNoFirstResponseMakeACallThatWantsNone() {
    AtomicInteger a = new AtomicInteger();
    AtomicInteger b = new AtomicInteger();
    RpcInstrumentation.CallObserver call =
        Instrumentations.combine(List.of(part(false, a), part(false, b))).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isFalse();
    CallObservation.firstResponse(call, System.nanoTime()); // as a transport reports it
    assertThat(a.get() + b.get()).isZero();
  }

  @Test
  void oneThatWantsItGetsTheFirstResponseAndTheOtherDoesNot() {
    AtomicInteger wanting = new AtomicInteger();
    AtomicInteger notWanting = new AtomicInteger();
    RpcInstrumentation.CallObserver call =
        Instrumentations.combine(List.of(part(false, notWanting), part(true, wanting)))
            .onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isTrue();
    CallObservation.firstResponse(call, System.nanoTime());
    assertThat(wanting.get()).isEqualTo(1);
    assertThat(notWanting.get()).isZero();
  }

  @Test
  void anObserverThatThrowsWhenAskedCountsAsNotWanting() {
    RpcInstrumentation throwing = (metadata, method) -> new RpcInstrumentation.CallObserver() {
      @Override
      public boolean observesFirstResponse() {
        throw new IllegalStateException("broken instrumentation");
      }
    };
    AtomicInteger other = new AtomicInteger();
    RpcInstrumentation.CallObserver call =
        Instrumentations.combine(List.of(throwing, part(false, other))).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isFalse();
  }
}
