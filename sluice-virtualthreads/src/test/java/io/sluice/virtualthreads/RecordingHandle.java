package io.sluice.virtualthreads;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A stream's handle as the pipe tests see it: each call is recorded as text (a message by its
 * data; the message is released), loop tasks go to the executor given, and once {@link
 * #loopGone} is set every hand-off to the loop is rejected as a shut-down loop would.
 *
 * <p>{@link #ALLOC} is netty's pooled allocator, whose buffers the leak detector tracks (unpooled
 * heap buffers it does not): a message the pipe under test drops without releasing fails the test
 * class (LeakCheckExtension).
 */
final class RecordingHandle implements StreamHandle {
  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  final List<String> calls;
  private final Executor executor;
  volatile boolean loopGone;

  RecordingHandle(Executor executor) {
    this(executor, new CopyOnWriteArrayList<>());
  }

  /** Records into {@code calls}, which several handles may share (to see their calls' order). */
  RecordingHandle(Executor executor, List<String> calls) {
    this.calls = calls;
    this.executor = executor;
  }

  private void rejectIfGone() {
    if (loopGone) {
      throw new RejectedExecutionException("the loop has shut down");
    }
  }

  @Override
  public Executor executor() {
    return loopGone
        ? task -> {
          throw new RejectedExecutionException("the loop has shut down");
        }
        : executor;
  }

  @Override
  public void request(long n) {
    rejectIfGone();
    calls.add("request " + n);
  }

  @Override
  public void cancel() {
    calls.add("cancel");
  }

  /** A message whose data is "explode" makes this call throw, as a failing core would. */
  @Override
  public void next(Message message) {
    String text = take(message);
    if (text.equals("explode")) {
      throw new IllegalStateException("cannot send explode");
    }
    calls.add("next " + text);
  }

  @Override
  public void nextAndComplete(Message message) {
    calls.add("nextAndComplete " + take(message));
  }

  @Override
  public void complete() {
    calls.add("complete");
  }

  @Override
  public void error(Throwable cause) {
    calls.add("error " + cause.getMessage());
  }

  @Override
  public ByteBufAllocator alloc() {
    return ALLOC;
  }

  static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }
}
