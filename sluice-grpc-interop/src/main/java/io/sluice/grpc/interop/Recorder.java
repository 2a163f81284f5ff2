package io.sluice.grpc.interop;

import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Records what a call's response observer receives, as grpc-java's StreamRecorder does: the values,
 * then either completion or the error. Callbacks may come on any thread; the reading methods are
 * for the case's thread.
 */
final class Recorder<T> implements StreamObserver<T> {
  private final List<T> values = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Throwable> done = new CompletableFuture<>(); // null: completed
  private final CompletableFuture<T> first = new CompletableFuture<>();

  @Override
  public void onNext(T value) {
    values.add(value);
    first.complete(value);
  }

  @Override
  public void onError(Throwable t) {
    done.complete(t);
    first.completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
    done.complete(null);
    first.completeExceptionally(new CaseFailure("the call completed without a response"));
  }

  /** Waits for the call to end; returns its error, or null when it completed. */
  Throwable awaitEnd(Duration wait) throws CaseFailure, InterruptedException {
    try {
      return done.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new CaseFailure("the call did not end within " + wait.toMillis() + " ms");
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never completed exceptionally
    }
  }

  /** Waits for the call to complete successfully; fails on its error. */
  List<T> awaitSuccess(Duration wait) throws CaseFailure, InterruptedException {
    Throwable t = awaitEnd(wait);
    if (t != null) {
      throw new CaseFailure("the call failed: " + Checks.status(t), t);
    }
    return values();
  }

  /** Waits for the first response. */
  T awaitFirst(Duration wait) throws CaseFailure, InterruptedException {
    try {
      return first.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new CaseFailure("no response within " + wait.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof CaseFailure ? (CaseFailure) c
          : new CaseFailure("the call failed before its first response: " + Checks.status(c), c);
    }
  }

  List<T> values() {
    return List.copyOf(values);
  }
}
