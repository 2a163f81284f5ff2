package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The reader takes what arrived in one go and returns it message by message without the lock;
 * credit is still granted as messages are returned, and nothing it took is lost or kept when the
 * stream is closed, by the reader or by another thread.
 */
class PipeReaderTest {
  private static final ByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);

  private final List<Long> granted = new CopyOnWriteArrayList<>();

  private Pipe requesterStream(int prefetch) {
    Pipe p = new Pipe(prefetch, true, false, true).noOutbound();
    p.handle(new GrantRecorder(Runnable::run, granted));
    return p;
  }

  private static String text(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  @Test
  void messagesComeOutInOrderAndCreditIsGrantedAsTheyAreReturned() {
    Pipe p = requesterStream(4); // refill 2
    Message[] in = new Message[4];
    for (int i = 0; i < 4; i++) {
      p.onNext(in[i] = Message.utf8(ALLOC, "m" + i));
    }
    assertThat(p.hasNext()).isTrue(); // takes all four
    assertThat(text(p.next())).isEqualTo("m0");
    assertThat(granted).isEmpty();
    assertThat(text(p.next())).isEqualTo("m1");
    assertThat(granted).containsExactly(2L);
    p.onNext(Message.utf8(ALLOC, "m4")); // arrives while the reader holds a batch
    assertThat(text(p.next())).isEqualTo("m2");
    assertThat(text(p.next())).isEqualTo("m3");
    assertThat(text(p.next())).isEqualTo("m4"); // the next batch
    assertThat(granted).containsExactly(2L, 2L);
    p.onComplete();
    assertThat(p.hasNext()).isFalse();
    assertThatThrownBy(p::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void theReadersOwnCloseReleasesWhatItTook() {
    Pipe p = requesterStream(8);
    Message a = Message.utf8(ALLOC, "a");
    Message b = Message.utf8(ALLOC, "b");
    Message c = Message.utf8(ALLOC, "c");
    p.onNext(a);
    p.onNext(b);
    assertThat(text(p.next())).isEqualTo("a"); // takes a and b
    p.onNext(c); // still in the inbox
    p.close();
    assertThat(b.refCnt()).isZero();
    assertThat(c.refCnt()).isZero();
    assertThat(p.hasNext()).isFalse();
  }

  @Test
  void aCloseFromAnotherThreadEndsTheStreamAndTheReaderReleasesWhatItTook() throws Exception {
    Pipe p = requesterStream(8);
    Message a = Message.utf8(ALLOC, "a");
    Message b = Message.utf8(ALLOC, "b");
    Message c = Message.utf8(ALLOC, "c");
    Message d = Message.utf8(ALLOC, "d");
    p.onNext(a);
    p.onNext(b);
    p.onNext(c);
    assertThat(text(p.next())).isEqualTo("a"); // takes a, b and c
    p.onNext(d);

    Thread closer = new Thread(p::close);
    closer.start();
    closer.join();
    assertThat(d.refCnt()).as("the inbox is released by close").isZero();
    assertThat(b.refCnt()).as("the reader's batch is the reader's to release").isOne();

    assertThat(p.hasNext()).isFalse();
    assertThat(b.refCnt()).isZero();
    assertThat(c.refCnt()).isZero();
  }

  @Test
  void nextAfterACloseFromAnotherThreadReleasesTheBatchAndThrows() throws Exception {
    Pipe p = requesterStream(8);
    Message a = Message.utf8(ALLOC, "a");
    Message b = Message.utf8(ALLOC, "b");
    Message c = Message.utf8(ALLOC, "c");
    p.onNext(a);
    p.onNext(b);
    p.onNext(c);
    assertThat(text(p.next())).isEqualTo("a");
    Thread closer = new Thread(p::close);
    closer.start();
    closer.join();
    assertThatThrownBy(p::next).isInstanceOf(NoSuchElementException.class);
    assertThat(b.refCnt()).isZero();
    assertThat(c.refCnt()).isZero();
  }

  @Test
  void theReadersCloseAfterACloseFromAnotherThreadReleasesWhatItTook() throws Exception {
    Pipe p = requesterStream(8);
    Message a = Message.utf8(ALLOC, "a");
    Message b = Message.utf8(ALLOC, "b");
    p.onNext(a);
    p.onNext(b);
    assertThat(text(p.next())).isEqualTo("a");
    Thread canceler = new Thread(p::close); // as a watchdog that cancels, then interrupts
    canceler.start();
    canceler.join();
    p.close(); // the reader, on its way out
    assertThat(b.refCnt()).isZero();
  }

  @Test
  void aStreamHandedToAnotherThreadIsReadThereAndTheFirstReadersCloseLeavesThatBatchAlone()
      throws Exception {
    Pipe p = requesterStream(8);
    Message b = Message.utf8(ALLOC, "b");
    Message c = Message.utf8(ALLOC, "c");
    p.onNext(Message.utf8(ALLOC, "a"));
    p.onNext(b);
    p.onNext(c);
    assertThat(text(p.next())).isEqualTo("a"); // this thread takes a, b and c

    java.util.concurrent.CompletableFuture<String> second = new java.util.concurrent.CompletableFuture<>();
    Thread other = new Thread(() -> second.complete(text(p.next())));
    other.start();
    other.join();
    assertThat(second.get()).isEqualTo("b"); // the batch moved with the stream
    p.close(); // no longer this thread's batch
    assertThat(c.refCnt()).as("left for the thread that reads now").isOne();

    Thread last = new Thread(() -> second.obtrudeValue(String.valueOf(p.hasNext())));
    last.start();
    last.join();
    assertThat(second.get()).isEqualTo("false");
    assertThat(c.refCnt()).isZero();
  }

  @Test
  void messagesLeftAfterTheEndCanBeReadWhenTheLoopIsGone() {
    Pipe p = new Pipe(2, true, false, true).noOutbound(); // refill 1: a grant per message
    p.handle(new GrantRecorder(Runnable::run, null)); // a null list: request(n) is rejected
    p.onNext(Message.utf8(ALLOC, "a"));
    p.onNext(Message.utf8(ALLOC, "b"));
    assertThat(text(p.next())).isEqualTo("a");
    assertThat(text(p.next())).isEqualTo("b");
    p.onComplete();
    assertThat(p.hasNext()).isFalse();
  }

  /** Records the credit granted (or, with no list, rejects it); everything else is a no-op. */
  private record GrantRecorder(Executor executor, List<Long> granted) implements StreamHandle {
    @Override
    public void request(long n) {
      if (granted == null) {
        throw new java.util.concurrent.RejectedExecutionException("the loop has shut down");
      }
      granted.add(n);
    }

    @Override
    public void cancel() {}

    @Override
    public void next(Message message) {
      message.release();
    }

    @Override
    public void complete() {}

    @Override
    public void error(Throwable cause) {}

    @Override
    public ByteBufAllocator alloc() {
      return ALLOC;
    }
  }
}
