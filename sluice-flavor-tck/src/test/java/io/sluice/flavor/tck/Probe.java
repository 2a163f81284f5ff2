package io.sluice.flavor.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A stream as the suite observes it: a flavor's subscriber records into it (turning each message
 * into its text and releasing it); demand and cancel go back through the flavor's own API. Waits
 * are hang guards only.
 */
abstract class Probe {
  static final long WAIT_SECONDS = 10;
  private final BlockingQueue<String> items = new LinkedBlockingQueue<>();
  final CompletableFuture<Void> done = new CompletableFuture<>();
  /** For channels: completes when the flavor saw its outbound half canceled by the responder. */
  final CompletableFuture<Void> outboundCanceled = new CompletableFuture<>();

  /** Asks for {@code n} more messages through the flavor's API. */
  abstract void request(long n);

  /** Cancels through the flavor's API. */
  abstract void cancel();

  final void next(Message m) {
    items.add(Contract.text(m));
  }

  final void next(String s) {
    items.add(s);
  }

  final void complete() {
    done.complete(null);
  }

  final void error(Throwable t) {
    done.completeExceptionally(t);
  }

  /** The next {@code n} messages' data. */
  final List<String> take(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try {
        String s = items.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(s).as("message %d of %d (got %s, done: %s)", i + 1, n, out, done).isNotNull();
        out.add(s);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
    return out;
  }

  /** Waits for normal completion; fails on error. Returns messages not yet taken. */
  final List<String> awaitComplete() {
    await(done);
    List<String> rest = new ArrayList<>();
    items.drainTo(rest);
    return rest;
  }

  /** Waits for the error and returns it. */
  final Throwable awaitError() {
    try {
      done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("no error within the hang guard", e);
    }
    throw new AssertionError("completed instead of failing");
  }

  static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("failed", e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("not done within the hang guard", e);
    }
  }
}
