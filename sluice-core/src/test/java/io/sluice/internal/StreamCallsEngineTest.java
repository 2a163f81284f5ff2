package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.RejectedExecutionHandlers;
import io.netty.util.concurrent.SingleThreadEventExecutor;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.core.ClientSetup;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.FinishingLoop;
import io.sluice.transport.DuplexTransport.Framing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
   * A live loop whose task queue is full (a bounded {@code maxPendingTasks}) refuses the hand-off
   * of a call from another thread. The call is queued already (the queue cannot give it back), so
   * it must not also throw: its caller would release the message again or retry the request. It
   * runs once, in order, with the next call's hand-off.
   */
  @Test
  void aCallWhoseHandOffAFullLoopRefusesRunsOnceWithTheNextCall() throws Exception {
    onFullLoop(
        (c, delivered) -> {
          Recorder taken = new Recorder();
          c.fireAndForget(Message.utf8(Wire.ALLOC, "next"), taken);
          taken.take("complete");
          return "next";
        });
  }

  /** The same refused hand-off with no later call: the loop's next read runs it. */
  @Test
  void aCallWhoseHandOffAFullLoopRefusesRunsOnceWithTheNextRead() throws Exception {
    onFullLoop(
        (c, delivered) -> {
          transport.inject(Wire.keepAlive(false, 0, new byte[0]));
          return null;
        });
  }

  interface AfterRefusal {
    /** Makes the connection run its queue; returns the data of a call it made, if any. */
    String run(SluiceConnection c, Recorder refused) throws Exception;
  }

  private void onFullLoop(AfterRefusal after) throws Exception {
    SingleThreadEventExecutor bounded =
        new DefaultEventExecutor(
            null, new DefaultThreadFactory("bounded-loop"), 16, RejectedExecutionHandlers.reject());
    CountDownLatch release = new CountDownLatch(1);
    try {
      transport = new FakeTransport(bounded, Framing.LENGTH_PREFIXED);
      SluiceConnection c =
          Loop.call(
              bounded,
              () ->
                  SluiceConnection.client(
                      transport, opts().build(), ClientSetup.defaults(), r -> new Responder() {}));
      transport.next(FrameType.SETUP);
      CountDownLatch busy = new CountDownLatch(1);
      bounded.execute(
          () -> {
            busy.countDown();
            try {
              release.await(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      assertThat(busy.await(Loop.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      AtomicInteger fillersRun = new AtomicInteger();
      AtomicInteger fillers = new AtomicInteger(Integer.MAX_VALUE);
      CountDownLatch fillersDone = new CountDownLatch(1);
      int queued = 0;
      while (queued < 1000) {
        try {
          bounded.execute(
              () -> {
                if (fillersRun.incrementAndGet() == fillers.get()) {
                  fillersDone.countDown();
                }
              });
          queued++;
        } catch (RejectedExecutionException full) {
          break;
        }
      }
      assertThat(queued).as("the loop's queue is full").isLessThan(1000);
      fillers.set(queued); // none has run yet: the loop is busy

      Message refusedRequest = Message.utf8(Wire.ALLOC, "refused");
      Recorder refused = new Recorder();
      c.fireAndForget(refusedRequest, refused); // must not throw: it is queued for good
      release.countDown();
      assertThat(fillersDone.await(Loop.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

      String next = after.run(c, refused);
      refused.take("complete");
      List<String> sent = new ArrayList<>();
      for (Wire.Sent s : transport.drain()) {
        if (s.type() == FrameType.REQUEST_FNF) {
          sent.add(s.dataUtf8());
        }
      }
      if (next != null) {
        assertThat(sent).containsExactly("refused", next);
      } else {
        assertThat(sent).containsExactly("refused");
      }
      assertThat(refused.all).as("signals of the refused hand-off's call").hasSize(1);
      assertThat(refusedRequest.refCnt()).isZero();
      Loop.run(bounded, c::dispose);
      Loop.settle(bounded);
    } finally {
      release.countDown();
      bounded.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
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
    assertThat(c.onClose()).failsWithin(10, TimeUnit.SECONDS);

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

  /** Calls racing from several threads after the loop is gone: each is answered once, none leaks. */
  @Test
  void callsRacingAfterTheLoopTerminatedAreEachAnsweredOnce() throws Exception {
    client(opts().build());
    SluiceConnection c = conn;
    int threads = 4;
    int perThread = 300;
    List<Message> requests = new ArrayList<>();
    List<Recorder> answers = new ArrayList<>();
    for (int i = 0; i < threads * perThread; i++) {
      requests.add(msg("r" + i));
      answers.add(new Recorder());
    }
    conn = null;
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

    CountDownLatch start = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int from = t * perThread;
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = from; i < from + perThread; i++) {
                  c.requestResponse(requests.get(i), answers.get(i));
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

    for (int i = 0; i < requests.size(); i++) {
      assertThat(answers.get(i).all).as("call %d", i).hasSize(1);
      assertThat(answers.get(i).all.get(0).kind()).isEqualTo("error");
      assertThat(requests.get(i).data().refCnt()).as("call %d's message", i).isZero();
    }
  }

  /**
   * A call made after the loop stopped taking tasks but before it terminated (its last step is
   * still running) waits for the termination, and is then answered by a stand-in.
   */
  @Test
  void aCallTheFinishingLoopRejectsIsAnsweredOnceItHasTerminated() throws Exception {
    onFinishingLoop(
        (finishing, c, request, answer) -> {
          finishing.shutdownGracefully(0, 0, TimeUnit.SECONDS);
          assertThat(finishing.inLastStep.await(10, TimeUnit.SECONDS)).isTrue();
          assertThat(finishing.isTerminated()).isFalse();

          c.requestResponse(request, answer); // rejected: waits for the stand-in
          assertThat(answer.all).as("not answered before the loop has terminated").isEmpty();
          assertThat(request.data().refCnt()).isEqualTo(1);

          finishing.finish();
          assertAnsweredWithError(answer, request, c);
        });
  }

  /**
   * A call whose hand-off the loop accepted as it shut down, but never runs (netty's loops drop
   * such a task at termination), is answered by a stand-in too.
   */
  @Test
  void aCallTheFinishingLoopAcceptsButDropsIsAnsweredOnceItHasTerminated() throws Exception {
    onFinishingLoop(
        (finishing, c, request, answer) -> {
          Thread caller = new Thread(() -> c.requestResponse(request, answer));
          finishing.landLateFrom(caller);
          caller.start(); // its hand-off lands once the loop is in its last step
          assertThat(finishing.lateHandOffWaiting.await(10, TimeUnit.SECONDS)).isTrue();
          finishing.shutdownGracefully(0, 0, TimeUnit.SECONDS);
          caller.join(TimeUnit.SECONDS.toMillis(30));
          assertThat(caller.isAlive()).isFalse();
          assertThat(answer.all).as("not answered before the loop has terminated").isEmpty();

          finishing.finish();
          assertAnsweredWithError(answer, request, c);
        });
  }

  /** What a test does with a client connection on a {@link FinishingLoop} and one request. */
  private interface OnFinishingLoop {
    void run(FinishingLoop finishing, SluiceConnection c, Message request, Recorder answer)
        throws Exception;
  }

  private void onFinishingLoop(OnFinishingLoop test) throws Exception {
    FinishingLoop finishing = new FinishingLoop();
    try {
      SluiceConnection c = clientOn(finishing);
      test.run(finishing, c, Message.utf8(c.alloc(), "rr"), new Recorder());
    } finally {
      finishing.finish();
      finishing.terminationFuture().await(10, TimeUnit.SECONDS);
    }
  }

  private SluiceConnection clientOn(FinishingLoop finishing) {
    transport = new FakeTransport(finishing, Framing.FRAME_PER_WRITE);
    SluiceConnection c =
        Loop.call(
            finishing,
            () ->
                SluiceConnection.client(
                    transport, opts().build(), ClientSetup.defaults(), r -> new Responder() {}));
    transport.next(FrameType.SETUP);
    return c;
  }

  private static void assertAnsweredWithError(Recorder answer, Message request, SluiceConnection c)
      throws InterruptedException {
    Ev ended = answer.events.poll(10, TimeUnit.SECONDS);
    assertThat(ended).as("answered by the stand-in").isNotNull();
    assertThat(ended.kind()).isEqualTo("error");
    assertThat(request.data().refCnt()).isZero();
    assertThat(c.onClose()).failsWithin(10, TimeUnit.SECONDS);
    assertThat(answer.all).containsExactly(ended);
  }
}
