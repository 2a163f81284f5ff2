package io.sluice.virtualthreads;

import static io.sluice.virtualthreads.RecordingHandle.take;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The reader takes what arrived in one go and returns it message by message without the lock;
 * credit is still granted as messages are returned, and nothing it took is lost or kept when the
 * stream is closed, by the reader or by another thread.
 */
class PipeReaderTest {
  private final RecordingHandle handle = new RecordingHandle(Runnable::run);

  private Pipe requesterStream(int prefetch) {
    Pipe p = new Pipe(prefetch, true, false, true).noOutbound();
    p.handle(handle);
    return p;
  }

  /** Messages {@code texts} arrive on {@code p}; returned in order, still owned by the pipe. */
  private static Message[] arrive(Pipe p, String... texts) {
    Message[] m = new Message[texts.length];
    for (int i = 0; i < texts.length; i++) {
      p.onNext(m[i] = Message.utf8(RecordingHandle.ALLOC, texts[i]));
    }
    return m;
  }

  private static void onAnotherThread(Runnable r) throws InterruptedException {
    Thread t = new Thread(r);
    t.start();
    t.join();
  }

  @Test
  void messagesComeOutInOrderAndCreditIsGrantedAsTheyAreReturned() {
    Pipe p = requesterStream(4); // refill 2
    arrive(p, "m0", "m1", "m2", "m3");
    assertThat(p.hasNext()).isTrue(); // takes all four
    assertThat(take(p.next())).isEqualTo("m0");
    assertThat(handle.calls).isEmpty();
    assertThat(take(p.next())).isEqualTo("m1");
    assertThat(handle.calls).containsExactly("request 2");
    arrive(p, "m4"); // while the reader holds a batch
    assertThat(take(p.next())).isEqualTo("m2");
    assertThat(take(p.next())).isEqualTo("m3");
    assertThat(take(p.next())).isEqualTo("m4"); // the next batch
    assertThat(handle.calls).containsExactly("request 2", "request 2");
    p.onComplete();
    assertThat(p.hasNext()).isFalse();
    assertThatThrownBy(p::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void theReadersOwnCloseReleasesWhatItTook() {
    Pipe p = requesterStream(8);
    Message[] m = arrive(p, "a", "b");
    assertThat(take(p.next())).isEqualTo("a"); // takes a and b
    Message c = arrive(p, "c")[0]; // still in the inbox
    p.close();
    assertThat(m[1].refCnt()).isZero();
    assertThat(c.refCnt()).isZero();
    assertThat(p.hasNext()).isFalse();
  }

  /**
   * Closed by another thread, the stream ends at once; what the reader took is the reader's to
   * release, at its next hasNext(), next() or close().
   */
  @Test
  void aCloseFromAnotherThreadLeavesTheReadersBatchToItsNextCall() throws Exception {
    for (String nextCall : new String[] {"hasNext", "next", "close"}) {
      Pipe p = requesterStream(8);
      Message[] m = arrive(p, "a", "b", "c");
      assertThat(take(p.next())).isEqualTo("a"); // takes a, b and c
      Message d = arrive(p, "d")[0];
      onAnotherThread(p::close);
      assertThat(d.refCnt()).as("the inbox is released by close").isZero();
      assertThat(m[1].refCnt()).as("the reader's batch is the reader's to release").isOne();

      switch (nextCall) {
        case "hasNext" -> assertThat(p.hasNext()).isFalse();
        case "next" -> assertThatThrownBy(p::next).isInstanceOf(NoSuchElementException.class);
        default -> p.close(); // a reader on its way out, after a watchdog's cancel
      }
      assertThat(m[1].refCnt()).as("after %s", nextCall).isZero();
      assertThat(m[2].refCnt()).as("after %s", nextCall).isZero();
    }
  }

  @Test
  void aStreamHandedToAnotherThreadIsReadThereAndTheFirstReadersCloseLeavesThatBatchAlone()
      throws Exception {
    Pipe p = requesterStream(8);
    Message c = arrive(p, "a", "b", "c")[2];
    assertThat(take(p.next())).isEqualTo("a"); // this thread takes a, b and c

    CompletableFuture<String> seen = new CompletableFuture<>();
    onAnotherThread(() -> seen.complete(take(p.next())));
    assertThat(seen.get()).isEqualTo("b"); // the batch moved with the stream
    p.close(); // no longer this thread's batch
    assertThat(c.refCnt()).as("left for the thread that reads now").isOne();

    onAnotherThread(() -> seen.obtrudeValue(String.valueOf(p.hasNext())));
    assertThat(seen.get()).isEqualTo("false");
    assertThat(c.refCnt()).isZero();
  }

  @Test
  void messagesLeftAfterTheEndCanBeReadWhenTheLoopIsGone() {
    Pipe p = requesterStream(2); // refill 1: a grant per message
    arrive(p, "a", "b");
    handle.loopGone = true;
    assertThat(take(p.next())).isEqualTo("a");
    assertThat(take(p.next())).isEqualTo("b");
    p.onComplete();
    assertThat(p.hasNext()).isFalse();
    assertThat(handle.calls).isEmpty();
  }
}
