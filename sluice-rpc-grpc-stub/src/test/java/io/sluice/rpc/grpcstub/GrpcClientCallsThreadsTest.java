package io.sluice.rpc.grpcstub;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;

/**
 * The grpc flavor's client calls its user's callbacks one at a time, as grpc-java does: the
 * on-ready handler of a request stream never runs on two threads at once, and a cancel never
 * delivers onError while a response is being delivered on the event loop, nor a response after it.
 * Each race is made deterministic with latches.
 */
class GrpcClientCallsThreadsTest {
  private static final long WAIT_SECONDS = 10;

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("latch").isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theOnReadyHandlerNeverRunsOnTwoThreadsAtOnce() throws Exception {
    GrpcClientCalls.RequestObserver<String> requests = new GrpcClientCalls.RequestObserver<>();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch wrote = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    requests.setOnReadyHandler(
        () -> {
          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
          if (runs.incrementAndGet() == 1) {
            while (requests.isReady()) {
              requests.onNext("r"); // the grpc-java pattern: write while ready
            }
            wrote.countDown();
            await(proceed); // still inside the handler while the loop takes a request
          }
          inside.decrementAndGet();
        });
    CompletableFuture<Void> starter = CompletableFuture.runAsync(requests::started); // the caller's thread
    await(wrote);
    // The connection takes one queued request (on "the loop": this thread): ready again.
    requests.flux().subscribe(
        new BaseSubscriber<String>() {
          @Override
          protected void hookOnSubscribe(Subscription s) {
            s.request(1);
          }
        });
    proceed.countDown();
    starter.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(most.get()).as("handler runs at once").isEqualTo(1);
    assertThat(runs.get()).as("the readiness was not lost: the handler ran again").isEqualTo(2);
  }

  /** Records the observer's callbacks: "next-start x", "next-end x", "error", with overlaps. */
  static final class Observer implements StreamObserver<String> {
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final CountDownLatch inNext = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch ended = new CountDownLatch(1);

    private void enter() {
      most.accumulateAndGet(inside.incrementAndGet(), Math::max);
    }

    @Override
    public void onNext(String value) {
      enter();
      events.add("next-start " + value);
      if (value.equals("slow")) {
        inNext.countDown();
        await(release);
      }
      events.add("next-end " + value);
      inside.decrementAndGet();
    }

    @Override
    public void onError(Throwable t) {
      enter();
      events.add("error " + io.grpc.Status.fromThrowable(t).getCode());
      inside.decrementAndGet();
      ended.countDown();
    }

    @Override
    public void onCompleted() {
      enter();
      events.add("completed");
      inside.decrementAndGet();
      ended.countDown();
    }
  }

  @Test
  void aCancelWhileAResponseIsDeliveredWaitsForItAndNothingFollows() throws Exception {
    Observer observer = new Observer();
    GrpcClientCalls.Responses<String> call = new GrpcClientCalls.Responses<>(observer);
    Sinks.Many<String> responses = Sinks.many().unicast().onBackpressureBuffer();
    responses.asFlux().subscribe(call);
    // "The loop" delivers a response the observer takes a while with.
    CompletableFuture<Void> loop =
        CompletableFuture.runAsync(
            () -> {
              responses.tryEmitNext("slow");
              responses.tryEmitNext("after");
            });
    await(observer.inNext);
    call.cancelCall("cancelled by the test", null); // another thread, while onNext runs
    observer.release.countDown();
    loop.get(WAIT_SECONDS, TimeUnit.SECONDS);
    await(observer.ended);
    assertThat(observer.most.get()).as("callbacks at once").isEqualTo(1);
    assertThat(observer.events).containsExactly("next-start slow", "next-end slow", "error CANCELLED");
  }
}
