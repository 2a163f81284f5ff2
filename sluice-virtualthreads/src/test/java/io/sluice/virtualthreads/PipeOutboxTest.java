package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.Message;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A sender off the event loop hands its messages to the loop in batches: they queue in the pipe's
 * outbox and one loop task sends them all; complete, error and cancel queue behind them, so the
 * core sees every outbound call in the order the sender made it.
 */
class PipeOutboxTest {
  private static final ByteBufAllocator ALLOC = RecordingHandle.ALLOC;

  private final List<Runnable> loopTasks = new CopyOnWriteArrayList<>();
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** A responder's stream pipe whose peer granted {@code demand}. */
  private Pipe pipe(Executor executor, long demand) {
    return pipe(new RecordingHandle(executor, calls), demand);
  }

  private static Pipe pipe(RecordingHandle handle, long demand) {
    Pipe p = new Pipe(4, true, true, false);
    p.handle(handle);
    p.onRequest(demand);
    return p;
  }

  private void runLoopTasks() {
    for (Runnable r : loopTasks) {
      r.run();
    }
    loopTasks.clear();
  }

  @Test
  void messagesSentOffTheLoopGoOutInOneTaskAndCompleteRidesOnTheLast() {
    Pipe p = pipe(loopTasks::add, 10);
    p.send(Message.utf8(ALLOC, "a"));
    p.send(Message.utf8(ALLOC, "b"));
    p.send(Message.utf8(ALLOC, "c"));
    p.complete();
    assertThat(calls).as("nothing reaches the core before the loop runs").isEmpty();
    assertThat(loopTasks).hasSize(1);

    runLoopTasks();
    assertThat(calls).containsExactly("next a", "next b", "nextAndComplete c");

    // Once drained, a later call schedules a new task (here: nothing more to send but complete).
    p.complete(); // idempotent
    assertThat(loopTasks).isEmpty();
  }

  @Test
  void aMessageSentAfterADrainSchedulesTheNextOne() {
    Pipe p = pipe(loopTasks::add, 10);
    p.send(Message.utf8(ALLOC, "a"));
    runLoopTasks();
    p.send(Message.utf8(ALLOC, "b"));
    assertThat(loopTasks).hasSize(1);
    runLoopTasks();
    p.complete(); // nothing queued: straight to the core
    assertThat(loopTasks).isEmpty();
    assertThat(calls).containsExactly("next a", "next b", "complete");
  }

  @Test
  void errorAndCancelQueueBehindTheMessagesSentBeforeThem() {
    Pipe failing = pipe(loopTasks::add, 10);
    failing.send(Message.utf8(ALLOC, "a"));
    failing.error(new IllegalStateException("boom"));
    Pipe canceling = pipe(loopTasks::add, 10);
    canceling.send(Message.utf8(ALLOC, "b"));
    canceling.complete();
    canceling.cancelStream(); // a channel handler that finished while the requester still sends
    assertThat(calls).isEmpty();

    runLoopTasks();
    assertThat(calls)
        .containsExactly("next a", "error boom", "nextAndComplete b", "cancel");
  }

  @Test
  void aSenderOnTheLoopThreadWithNothingQueuedCallsTheCoreAtOnce() throws Exception {
    DefaultEventExecutor loop = new DefaultEventExecutor();
    try {
      Pipe p = pipe(loop, 10);
      int seen =
          loop.submit(
                  () -> {
                    p.send(Message.utf8(ALLOC, "a"));
                    return calls.size();
                  })
              .get(10, TimeUnit.SECONDS);
      assertThat(seen).isEqualTo(1);
      assertThat(calls).containsExactly("next a");
    } finally {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void aLoopThatRejectsTheDrainReleasesWhatWasQueuedAndFailsTheSender() {
    RejectedExecutionException shutDown = new RejectedExecutionException("loop shut down");
    Pipe p =
        pipe(
            r -> {
              throw shutDown;
            },
            10);
    Message first = Message.utf8(ALLOC, "a");
    assertThatThrownBy(() -> p.send(first)).isSameAs(shutDown);
    assertThat(first.refCnt()).isZero();

    Message second = Message.utf8(ALLOC, "b");
    assertThatThrownBy(() -> p.send(second)).isSameAs(shutDown);
    assertThat(second.refCnt()).isZero();
    assertThat(calls).isEmpty();
  }

  @Test
  void aCancelWhileMessagesAreQueuedFailsTheNextSend() {
    Pipe p = pipe(loopTasks::add, 2);
    p.send(Message.utf8(ALLOC, "a"));
    p.send(Message.utf8(ALLOC, "b"));
    p.onCancel(); // the peer canceled: the sender learns at its next send
    Message late = Message.utf8(ALLOC, "c");
    assertThatThrownBy(() -> p.send(late))
        .isInstanceOf(java.util.concurrent.CancellationException.class);
    assertThat(late.refCnt()).isZero();
    runLoopTasks(); // the queued two still go to the core, which releases them on a canceled stream
    assertThat(calls).containsExactly("next a", "next b");
  }

  @Test
  void aCallTheCoreFailsDuringTheDrainFailsTheStreamAndReleasesTheRest() {
    Pipe p = pipe(loopTasks::add, 10);
    Message after = Message.utf8(ALLOC, "after");
    p.send(Message.utf8(ALLOC, "a"));
    p.send(Message.utf8(ALLOC, "explode"));
    p.send(after);
    runLoopTasks();
    assertThat(after.refCnt()).isZero();
    assertThat(calls).containsExactly("next a", "error cannot send explode");

    // Not stalled with a drain that never comes: the next send fails at once.
    Message late = Message.utf8(ALLOC, "late");
    assertThatThrownBy(() -> p.send(late)).hasMessage("cannot send explode");
    assertThat(late.refCnt()).isZero();
    assertThat(loopTasks).isEmpty();
  }
}
