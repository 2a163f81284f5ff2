package io.sluice.cli;

import io.sluice.Message;
import io.sluice.StreamListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Receives the answer to {@code seq:N} (messages "0".."N-1") and checks that each arrives once, in
 * order: {@link #received} counts them, {@link #wrong} names the first out of place, {@link #done}
 * completes with the stream. Each message is released here. Signals from the connection's loop;
 * read from any thread.
 */
final class SequenceListener implements StreamListener {
  final AtomicLong received = new AtomicLong();
  final AtomicReference<String> wrong = new AtomicReference<>();
  final CompletableFuture<Void> done = new CompletableFuture<>();
  private final Runnable onFirst;

  /** {@code onFirst} runs when the first message arrives. */
  SequenceListener(Runnable onFirst) {
    this.onFirst = onFirst;
  }

  @Override
  public void onNext(Message m) {
    String d = m.dataUtf8();
    m.release();
    long expected = received.getAndIncrement();
    if (expected == 0) {
      onFirst.run();
    }
    if (!d.equals(Long.toString(expected))) {
      wrong.compareAndSet(null, "message " + expected + " was '" + d + "'");
    }
  }

  @Override
  public void onComplete() {
    done.complete(null);
  }

  @Override
  public void onError(Throwable cause) {
    done.completeExceptionally(cause);
  }
}
