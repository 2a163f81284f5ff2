package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A requester's cancel reaches a blocking handler as an interrupt of its thread, also when the
 * cancel came before the handler's thread started (the executor had not run it yet), and the
 * interrupt does not outlive the handler on a thread the executor reuses.
 */
class ResponderCancelTest {
  private final List<Runnable> held = new CopyOnWriteArrayList<>();
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** Runs the held handler tasks one after the other on one new platform thread (a reused one). */
  private void runHeldOnOneThread(Runnable afterEach) throws InterruptedException {
    Thread t =
        new Thread(
            () -> {
              for (Runnable r : held) {
                r.run();
                afterEach.run();
              }
            });
    t.setDaemon(true); // a handler that was not interrupted must not hold the test JVM
    t.start();
    t.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(t.isAlive()).as("the handlers returned").isFalse();
  }

  /**
   * A request-response responder whose handler (the request released, then {@code answer}) runs
   * only when the test runs the tasks held for it.
   */
  private Responder heldResponder(Supplier<Message> answer) {
    return BlockingClient.toResponder(
        new BlockingResponder() {
          @Override
          public Message requestResponse(Message request) {
            request.release();
            return answer.get();
          }
        },
        held::add,
        4);
  }

  @Test
  void aRequestResponseCanceledBeforeItsHandlerStartedRunsInterrupted() throws Exception {
    AtomicBoolean interruptedAtStart = new AtomicBoolean();
    Responder r =
        heldResponder(
            () -> {
              // Looks without clearing: the adapter must clear it when the handler returns.
              interruptedAtStart.set(Thread.currentThread().isInterrupted());
              return Message.utf8(RecordingHandle.ALLOC, "late");
            });
    RecordingHandle response = new RecordingHandle(Runnable::run, calls);
    StreamListener l = r.requestResponse(Message.utf8(RecordingHandle.ALLOC, "q"), response);
    assertThat(held).as("the handler has not started").hasSize(1);

    l.onCancel();
    AtomicBoolean interruptLeft = new AtomicBoolean();
    runHeldOnOneThread(() -> interruptLeft.set(Thread.currentThread().isInterrupted()));

    assertThat(interruptedAtStart).as("interrupted as it started").isTrue();
    assertThat(interruptLeft).as("the interrupt is cleared when the handler returns").isFalse();
    // The late answer goes to the core, which drops (and releases) it for a canceled stream.
    assertThat(calls).containsExactly("nextAndComplete late");
  }

  @Test
  void aCancelWhileTheHandlerBlocksInterruptsIt() throws Exception {
    CountDownLatch blocking = new CountDownLatch(1);
    AtomicReference<Throwable> seen = new AtomicReference<>();
    Responder r =
        heldResponder(
            () -> {
              blocking.countDown();
              try {
                Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                return Message.utf8(RecordingHandle.ALLOC, "slept");
              } catch (InterruptedException e) {
                seen.set(e);
                throw new IllegalStateException("gave up");
              }
            });
    RecordingHandle response = new RecordingHandle(Runnable::run, calls);
    StreamListener l = r.requestResponse(Message.utf8(RecordingHandle.ALLOC, "q"), response);
    Thread t = new Thread(held.get(0));
    t.setDaemon(true);
    t.start();
    assertThat(blocking.await(30, TimeUnit.SECONDS)).isTrue();

    l.onCancel();
    t.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(t.isAlive()).isFalse();
    assertThat(seen.get()).isInstanceOf(InterruptedException.class);
    assertThat(calls).containsExactly("error gave up");
  }
}
