package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader blocked on a stream is woken once per event-loop turn, after the loop has handed over
 * everything it read, not once per message: messages arriving while it waits schedule one wake-up
 * task on the stream's executor, and that task lets it read them all.
 */
class PipeWakeTest {
  private static final ByteBufAllocator ALLOC = RecordingHandle.ALLOC;

  /** A message sent on a stream that failed is released, also when the failure is an Error. */
  @Test
  void sendingOnAStreamThatFailedWithAnErrorReleasesTheMessage() {
    Pipe pipe = new Pipe(4, true, false, true);
    pipe.onError(new AssertionError("the stream's cause"));
    Message m = Message.utf8(ALLOC, "late");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> pipe.send(m))
        .isInstanceOf(AssertionError.class)
        .hasMessage("the stream's cause");
    assertThat(m.refCnt()).isZero();
  }

  @Test
  @Timeout(30) // hang guard only
  void messagesArrivingWhileTheReaderWaitsScheduleOneWakeUp() throws Exception {
    List<Runnable> loopTasks = new CopyOnWriteArrayList<>();
    Pipe pipe = new Pipe(16, true, false, true).noOutbound();
    pipe.handle(new RecordingHandle(loopTasks::add));
    BlockingQueue<String> read = new LinkedBlockingQueue<>();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  while (pipe.hasNext()) {
                    Message m = pipe.next();
                    read.add(m.dataUtf8());
                    m.release();
                  }
                  read.add("<end>");
                });
    while (reader.getState() != Thread.State.WAITING) {
      Thread.sleep(1);
    }

    pipe.onNext(Message.utf8(ALLOC, "a"));
    pipe.onNext(Message.utf8(ALLOC, "b"));
    pipe.onNext(Message.utf8(ALLOC, "c"));
    assertThat(loopTasks).hasSize(1);

    loopTasks.get(0).run();
    assertThat(read.poll(10, TimeUnit.SECONDS)).isEqualTo("a");
    assertThat(read.poll(10, TimeUnit.SECONDS)).isEqualTo("b");
    assertThat(read.poll(10, TimeUnit.SECONDS)).isEqualTo("c");

    pipe.onComplete(); // the end wakes the reader at once
    assertThat(read.poll(10, TimeUnit.SECONDS)).isEqualTo("<end>");
    reader.join();
  }
}
