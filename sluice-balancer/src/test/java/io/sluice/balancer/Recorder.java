package io.sluice.balancer;

import io.sluice.Message;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A listener that records what it got; {@link #done} completes at the end (error or complete). */
final class Recorder implements StreamListener {
  final List<String> messages = new CopyOnWriteArrayList<>();
  final CompletableFuture<Throwable> done = new CompletableFuture<>(); // null on completion

  @Override
  public void onNext(Message message) {
    messages.add(message.dataUtf8());
    message.release();
  }

  @Override
  public void onComplete() {
    done.complete(null);
  }

  @Override
  public void onError(Throwable cause) {
    done.complete(cause);
  }

  /** The error, or null on completion; waits at most 10 s (a hang fails the test). */
  Throwable await() throws Exception {
    return done.get(10, TimeUnit.SECONDS);
  }
}
