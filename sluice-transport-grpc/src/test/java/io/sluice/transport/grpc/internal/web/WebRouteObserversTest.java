package io.sluice.transport.grpc.internal.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.CallObservation;
import io.sluice.rpc.RpcInstrumentation;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * WebRoute's pair of instrumentations (the server's and the console's) asks for a first response
 * only when one of its parts does.
 */
class WebRouteObserversTest {
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
        WebRoute.both(part(false, a), part(false, b)).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isFalse();
    CallObservation.firstResponse(call, System.nanoTime()); // as a transport reports it
    assertThat(a.get() + b.get()).isZero();
  }

  @Test
  void oneThatWantsItGetsTheFirstResponseAndTheOtherDoesNot() {
    AtomicInteger wanting = new AtomicInteger();
    AtomicInteger notWanting = new AtomicInteger();
    RpcInstrumentation.CallObserver call =
        WebRoute.both(part(false, notWanting), part(true, wanting)).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isTrue();
    CallObservation.firstResponse(call, System.nanoTime());
    assertThat(wanting.get()).isEqualTo(1);
    assertThat(notWanting.get()).isZero();
  }

  @Test
  void theConsolesOwnFiguresWantNoFirstResponseSoThePairWithOneThatWantsNoneWantsNone() {
    AtomicInteger other = new AtomicInteger();
    RpcInstrumentation.CallObserver call =
        WebRoute.both(part(false, other), new CallFigures()).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isFalse();
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
        WebRoute.both(throwing, part(false, other)).onCallStart(null, null);

    assertThat(call.observesFirstResponse()).isFalse();
  }
}
