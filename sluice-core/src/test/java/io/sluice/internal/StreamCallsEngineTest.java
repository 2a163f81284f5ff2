package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.internal.frame.FrameType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Calls on a stream from threads off its event loop, and one task that makes them in place. */
class StreamCallsEngineTest extends EngineTestBase {

  @Test
  void aTaskRunInOrderActsAfterTheCallsQueuedBeforeIt() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle s = conn.requestChannel(msg("first"), false, 4, r); // queued: not on the loop
    StreamCalls.runInOrder(s, () -> StreamCalls.cancelInPlace(s));
    assertThat(transport.next(FrameType.REQUEST_CHANNEL).dataUtf8()).isEqualTo("first");
    transport.next(FrameType.CANCEL);
    transport.assertNothingSent();
  }

  /**
   * Once the loop has shut down, a call from another thread neither throws nor is left in the
   * queue (holding its message, its caller waiting): the calling thread stands in for the loop,
   * closes the connection and runs the call as on a closed connection. Every later call too, not
   * only the first: the first rejected hand-off must not leave the connection believing a drain is
   * on its way.
   */
  @Test
  void callsAfterTheLoopTerminatedFailAsOnAClosedConnection() throws Exception {
    client(opts().build());
    Recorder live = new Recorder();
    StreamHandle s = Loop.call(loop, () -> conn.requestChannel(msg("go"), false, 4, live));
    transport.next(FrameType.REQUEST_CHANNEL);
    Message late = msg("late");
    Message request = msg("rr");
    SluiceConnection c = conn;
    conn = null; // nothing left to dispose on a loop that is gone
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

    s.next(late); // the first call finds the loop gone: the connection closes
    assertThat(late.data().refCnt()).as("the message handed over is released").isZero();
    Ev ended = live.events.poll(10, TimeUnit.SECONDS);
    assertThat(ended.kind()).isEqualTo("error");
    assertThat(ended.error()).hasMessageContaining("event loop has shut down");
    assertThat(c.onClose()).isCompletedExceptionally();

    s.request(1);
    s.cancel();
    Recorder later = new Recorder();
    c.requestResponse(request, later);
    assertThat(request.data().refCnt()).isZero();
    assertThat(later.events.poll(10, TimeUnit.SECONDS).kind()).isEqualTo("error");

    List<String> ran = new CopyOnWriteArrayList<>();
    StreamCalls.runInOrder(s, () -> ran.add("task"));
    assertThat(ran).as("a task runs, in place of the loop").containsExactly("task");
    assertThat(live.all).as("the first stream ended once").containsExactly(ended);
  }

  /** Calls racing from several threads after the loop is gone: each is answered, none leaks. */
  @Test
  void callsRacingAfterTheLoopTerminatedAreEachAnsweredOnce() throws Exception {
    client(opts().build());
    SluiceConnection c = conn;
    int threads = 4;
    int perThread = 300;
    List<Message> requests = new CopyOnWriteArrayList<>();
    for (int i = 0; i < threads * perThread; i++) {
      requests.add(msg("r" + i));
    }
    conn = null;
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

    Recorder answers = new Recorder(); // one listener for all: it records every call's end
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<Message> mine = requests.subList(t * perThread, (t + 1) * perThread);
      Thread th = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (Message m : mine) {
          c.requestResponse(m, answers);
        }
      });
      th.start();
      callers.add(th);
    }
    start.countDown();
    for (Thread th : callers) {
      th.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(th.isAlive()).isFalse();
    }

    assertThat(answers.all).hasSize(threads * perThread).allMatch(e -> e.kind().equals("error"));
    assertThat(requests).allMatch(m -> m.data().refCnt() == 0);
  }
}
