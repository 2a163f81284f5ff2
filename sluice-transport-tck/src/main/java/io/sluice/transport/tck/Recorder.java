package io.sluice.transport.tck;

import io.sluice.Message;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requesting side's listener of one stream: describes and releases every message at once,
 * and completes {@link #ended} with {@code null} on completion or with the error (or a {@link
 * java.util.concurrent.CancellationException} on cancel). Called on the connection's loop; read
 * from the test's thread.
 */
class Recorder implements StreamListener {
  final List<String> received = new CopyOnWriteArrayList<>();
  final AtomicInteger count = new AtomicInteger();
  /** Counted down by the first message. */
  final CountDownLatch first = new CountDownLatch(1);
  /** Completes with null on completion, with the error on error. */
  final CompletableFuture<Throwable> ended = new CompletableFuture<>();
  /** Messages whose content was not what was sent (numbered messages only). */
  final AtomicInteger corrupt = new AtomicInteger();
  private final boolean numbered;

  /** @param numbered the messages are {@link KitMessages#numbered}: check each instead of keeping its text */
  Recorder(boolean numbered) {
    this.numbered = numbered;
  }

  Recorder() {
    this(false);
  }

  @Override
  public void onNext(Message message) {
    try {
      if (numbered) {
        int expected = count.get();
        if (KitMessages.numberOf(message.data()) != expected) {
          corrupt.incrementAndGet();
        }
      } else {
        received.add(KitMessages.describe(message));
      }
    } finally {
      message.release();
    }
    count.incrementAndGet();
    first.countDown();
  }

  @Override
  public void onComplete() {
    ended.complete(null);
  }

  @Override
  public void onError(Throwable cause) {
    ended.complete(cause);
  }

  @Override
  public void onCancel() {
    ended.complete(new java.util.concurrent.CancellationException("canceled by the peer"));
  }
}
