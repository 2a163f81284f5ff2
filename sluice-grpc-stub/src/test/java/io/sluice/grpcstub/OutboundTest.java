package io.sluice.grpcstub;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Outbound} on a fake event loop whose tasks the test runs by hand: the peer's credit is
 * used exactly (never exceeded, never left unused while the handler wants to send), order is kept
 * and the on-ready handler runs only when a handler that saw {@code isReady() == false} can go on.
 */
class OutboundTest {
  private final ManualLoop loop = new ManualLoop();
  private final FakeHandle handle = new FakeHandle();
  private final Outbound out = new Outbound();

  @AfterEach
  void releaseAll() {
    handle.sent.forEach(Message::release);
  }

  /** From the pooled allocator, which the leak detector tracks: a dropped message fails the class. */
  private static Message message(int i) {
    return Message.of(PooledByteBufAllocator.DEFAULT.buffer(1).writeByte(i));
  }

  private static int id(Message m) {
    return m.data().getByte(m.data().readerIndex());
  }

  /** Sends numbered messages while {@code isReady()}, as a grpc-java service's on-ready handler. */
  private final class Sender implements Runnable {
    int next;
    int runs;
    final int total;

    Sender(int total) {
      this.total = total;
    }

    @Override
    public void run() {
      runs++;
      while (next < total && out.isReady()) {
        out.next(message(next++));
      }
    }
  }

  @Test
  void aHandlerLoopingOnIsReadySendsExactlyTheGrantedCreditThenWaitsForOnReady() {
    Sender s = new Sender(100);
    out.onReadyHandler(s);
    out.handle(handle);
    assertThat(out.isReady()).isFalse(); // no credit yet

    out.onRequest(3);
    assertThat(s.runs).isEqualTo(1);
    assertThat(handle.ids()).containsExactly(0, 1, 2);
    assertThat(out.isReady()).isFalse();

    out.onRequest(2);
    assertThat(s.runs).isEqualTo(2);
    assertThat(handle.ids()).containsExactly(0, 1, 2, 3, 4);
    assertThat(loop.tasks).isEmpty();
  }

  @Test
  void creditGrantedWhileSendingIsUsedByTheRunningHandlerWithoutALoopTask() {
    Sender s = new Sender(10);
    out.onReadyHandler(s);
    out.handle(handle);
    // The core grants more demand from inside next(), as the stream's pump does at half a window.
    handle.onSend = count -> {
      if (count == 2) {
        out.onRequest(4);
      }
    };
    out.onRequest(2);
    assertThat(handle.ids()).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(s.runs).isEqualTo(1); // went on by itself: no extra on-ready call owed
    assertThat(loop.tasks).isEmpty(); // and no drain task was needed for it
    assertThat(out.isReady()).isFalse();
  }

  @Test
  void aGrantWhileSendingIsHandedToAWaitingHandlerInALoopTask() {
    out.handle(handle);
    out.onRequest(1); // no handler yet: nobody is told
    Sender s = new Sender(5);
    out.onReadyHandler(s); // waiting for its first on-ready call
    handle.onSend = count -> {
      if (count == 1) {
        out.onRequest(2);
      }
    };
    out.next(message(100)); // sent by other code on the loop, using the one credit
    assertThat(handle.ids()).containsExactly(100);
    assertThat(s.runs).isZero(); // never nested in the onNext that sent the message
    loop.runAll();
    assertThat(s.runs).isEqualTo(1);
    assertThat(handle.ids()).containsExactly(100, 0, 1);
  }

  @Test
  void messagesBeyondTheCreditWaitInOrderForTheNextGrant() {
    out.handle(handle);
    out.onRequest(1);
    for (int i = 0; i < 4; i++) {
      out.next(message(i)); // the handler ignores isReady(), which gRPC allows
    }
    assertThat(handle.ids()).containsExactly(0);
    assertThat(out.isReady()).isFalse();
    out.onRequest(2);
    assertThat(handle.ids()).containsExactly(0, 1, 2);
    out.complete(); // waits behind the queued message
    out.onRequest(5);
    loop.runAll();
    assertThat(handle.ids()).containsExactly(0, 1, 2, 3);
    assertThat(handle.completed).isTrue();
    assertThat(out.isReady()).isFalse();
  }

  @Test
  void unboundedCreditIsNeverUsedUp() {
    Sender s = new Sender(1000);
    out.onReadyHandler(s);
    out.handle(handle);
    out.onRequest(Long.MAX_VALUE);
    assertThat(handle.sent).hasSize(1000);
    assertThat(out.isReady()).isTrue();
  }

  @Test
  void closingReleasesWhatIsQueuedAndLaterMessages() {
    out.handle(handle);
    Message queued = message(0);
    out.next(queued);
    out.close();
    assertThat(queued.refCnt()).isZero();
    Message late = message(1);
    out.next(late);
    assertThat(late.refCnt()).isZero();
    out.onRequest(3);
    loop.runAll();
    assertThat(handle.sent).isEmpty();
    assertThat(out.isReady()).isFalse();
  }

  /** Records what the outbound half hands to the stream. */
  private final class FakeHandle implements StreamHandle {
    final List<Message> sent = new ArrayList<>();
    boolean completed;
    IntConsumer onSend = count -> {};

    List<Integer> ids() {
      List<Integer> ids = new ArrayList<>();
      for (Message m : sent) {
        ids.add(id(m));
      }
      return ids;
    }

    @Override
    public void next(Message message) {
      sent.add(message);
      onSend.accept(sent.size());
    }

    @Override
    public void complete() {
      completed = true;
    }

    @Override
    public void error(Throwable cause) {
      throw new AssertionError(cause);
    }

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}

    @Override
    public Executor executor() {
      return loop;
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }
  }

  /** An event loop that the test thread is always "in"; its tasks run when the test says so. */
  private static final class ManualLoop extends AbstractEventExecutor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    void runAll() {
      for (Runnable t; (t = tasks.poll()) != null; ) {
        t.run();
      }
    }

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    @Override
    public boolean inEventLoop(Thread thread) {
      return true;
    }

    @Override
    public boolean isShuttingDown() {
      return false;
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
      return terminationFuture();
    }

    @Override
    public Future<?> terminationFuture() {
      return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
    }

    @Override
    @Deprecated
    public void shutdown() {}

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}
