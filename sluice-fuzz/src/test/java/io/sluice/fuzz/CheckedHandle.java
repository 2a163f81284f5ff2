package io.sluice.fuzz;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A {@link StreamHandle} that remembers any exception the engine throws back at the application.
 * The harness uses handles correctly, so such an exception is an engine failure; but when it is
 * thrown inside a listener callback, the engine takes it for the listener's own failure and only
 * logs it at debug level. Recording it here makes it a finding. The exception still propagates,
 * as it would in an application.
 */
final class CheckedHandle implements StreamHandle {
  private static final List<Throwable> THROWN = new ArrayList<>();

  private final StreamHandle delegate;

  private CheckedHandle(StreamHandle delegate) {
    this.delegate = delegate;
  }

  static StreamHandle of(StreamHandle h) {
    return h == null ? null : new CheckedHandle(h);
  }

  /** Runs {@code r}, recording (and rethrowing) what it throws. */
  static void call(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException | Error t) {
      THROWN.add(t);
      throw t;
    }
  }

  /** Returns and clears what was recorded. */
  static List<Throwable> take() {
    List<Throwable> out = new ArrayList<>(THROWN);
    THROWN.clear();
    return out;
  }

  @Override
  public void request(long n) {
    call(() -> delegate.request(n));
  }

  @Override
  public void cancel() {
    call(delegate::cancel);
  }

  @Override
  public void next(Message message) {
    call(() -> delegate.next(message));
  }

  @Override
  public void nextAndComplete(Message message) {
    call(() -> delegate.nextAndComplete(message));
  }

  @Override
  public void complete() {
    call(delegate::complete);
  }

  @Override
  public void error(Throwable cause) {
    call(() -> delegate.error(cause));
  }

  @Override
  public Executor executor() {
    return delegate.executor();
  }

  @Override
  public ByteBufAllocator alloc() {
    return delegate.alloc();
  }
}
