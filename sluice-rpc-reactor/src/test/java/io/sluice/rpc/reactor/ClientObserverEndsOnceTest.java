package io.sluice.rpc.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import sluice.test.echo.ReactorEchoService;

/**
 * A client call's observer hears of the call's end once, even when the caller cancels on its own
 * thread while the call completes on the connection's: a metrics observer would otherwise count the
 * call twice (once OK, once CANCELLED), and a tracing one end its span twice.
 */
class ClientObserverEndsOnceTest {
  private static final int RACES = 20_000;

  @Test
  void aCancelRacingTheCompletionEndsTheObservationOnce() throws Exception {
    CallMetadata md = CallOptions.DEFAULT.metadata(ReactorEchoService.SAY);
    AtomicInteger twice = new AtomicInteger();
    AtomicInteger ended = new AtomicInteger();
    AtomicInteger ends = new AtomicInteger();
    RpcInstrumentation counting =
        (m, method) ->
            new RpcInstrumentation.CallObserver() {
              @Override
              public void onEnd(Status status, long nanosSinceStart) {
                ends.incrementAndGet();
              }
            };
    // Two threads that meet at a spinning barrier each round: one completes the call, the other
    // cancels it, as close together as the machine allows.
    AtomicInteger phase = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Subscription> subscription = new AtomicReference<>();
    Thread canceller =
        new Thread(
            () -> {
              for (int i = 0; i < RACES; i++) {
                int round = 2 * i + 1;
                while (phase.get() < round) {
                  if (stop.get()) {
                    return;
                  }
                  Thread.onSpinWait();
                }
                subscription.get().cancel();
                phase.incrementAndGet(); // round + 1: done
              }
            });
    canceller.setDaemon(true);
    canceller.start();
    // Bounded in time too: on one CPU each hand-over waits for a time slice. The races run until
    // then are what is checked (at least one).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int raced = 0;
    for (int i = 0; i < RACES && System.nanoTime() < deadline; i++) {
      ends.set(0);
      Sinks.Many<String> source = Sinks.many().unicast().onBackpressureBuffer();
      ReactorClientCalls.observe(source.asFlux(), counting, md, ReactorEchoService.SAY)
          .subscribe(
              new BaseSubscriber<String>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                  subscription.set(s);
                  s.request(Long.MAX_VALUE);
                }
              });
      phase.incrementAndGet(); // 2i + 1: go
      source.tryEmitComplete();
      while (phase.get() < 2 * i + 2 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      if (phase.get() < 2 * i + 2) {
        break; // the canceller did not come round in time: this race is not counted
      }
      raced++;
      ended.addAndGet(Math.min(1, ends.get()));
      if (ends.get() > 1) {
        twice.incrementAndGet();
      }
    }
    stop.set(true);
    canceller.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(raced).as("races run").isPositive();
    assertThat(twice).as("races of %s in which the observer heard the end twice", raced).hasValue(0);
    assertThat(ended).as("races in which it heard the end").hasValue(raced);
  }

}
