package io.sluice.futures;

import io.sluice.Message;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Small {@link Flow} helpers so that streams need no reactive library: a publisher that pulls from
 * an iterator exactly as much as is requested, and a consumer that requests in batches.
 *
 * <p><b>Threads.</b> The methods keep no state and may be called from any thread. {@link #error}
 * and {@link #empty} signal on the subscribing thread. {@link #fromIterator} calls the iterator and
 * the subscriber's {@code onNext} on the thread that subscribes or calls {@code request}, one
 * thread at a time. {@link #forEach} runs {@code onMessage} on whatever thread the stream signals
 * on (for a Sluice publisher, the connection's event loop), so it should not block.
 *
 * <p><b>Buffers.</b> These helpers hold none. An element of {@code fromIterator} belongs to the
 * subscriber once delivered; {@code forEach} hands each message to {@code onMessage}, which
 * releases it, and itself releases only the messages that arrive after the future is done.
 */
public final class FlowStreams {
  private FlowStreams() {}

  /** A publisher that fails every subscriber with {@code error}. */
  public static <T> Flow.Publisher<T> error(Throwable error) {
    Objects.requireNonNull(error, "error");
    return s -> {
      s.onSubscribe(Noop.INSTANCE);
      s.onError(error);
    };
  }

  /** A publisher that completes every subscriber at once. */
  public static <T> Flow.Publisher<T> empty() {
    return s -> {
      s.onSubscribe(Noop.INSTANCE);
      s.onComplete();
    };
  }

  /**
   * A single-use publisher that takes messages from {@code messages} only as they are requested
   * (so an iterator that creates each message in {@code next()} never holds one the subscriber
   * did not ask for), on the thread that requested them. Completes when the iterator is exhausted;
   * an exception from the iterator fails the stream.
   */
  public static <T> Flow.Publisher<T> fromIterator(Iterator<? extends T> messages) {
    Objects.requireNonNull(messages, "messages");
    AtomicBoolean used = new AtomicBoolean();
    return s -> {
      Objects.requireNonNull(s, "subscriber (Reactive Streams §1.9)");
      if (!used.compareAndSet(false, true)) {
        s.onSubscribe(Noop.INSTANCE);
        s.onError(new IllegalStateException("this publisher allows only one subscriber"));
        return;
      }
      new IteratorSubscription<T>(s, messages).start();
    };
  }

  /**
   * Subscribes to {@code stream}, hands each message to {@code onMessage} (which owns and releases
   * it) and keeps at most {@code batch} messages requested at a time. The future completes when the
   * stream does, or fails with its error; canceling the future cancels the stream.
   */
  public static CompletableFuture<Void> forEach(
      Flow.Publisher<Message> stream, int batch, Consumer<? super Message> onMessage) {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(onMessage, "onMessage");
    if (batch < 1) {
      throw new IllegalArgumentException("batch must be at least 1: " + batch);
    }
    BatchSubscriber s = new BatchSubscriber(batch, onMessage);
    stream.subscribe(s);
    return s.done;
  }

  private enum Noop implements Flow.Subscription {
    INSTANCE;

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}
  }

  /** Emits from an iterator as requested: a serialized drain loop on the requesting thread. */
  private static final class IteratorSubscription<T> implements Flow.Subscription {
    private final Flow.Subscriber<? super T> subscriber;
    private final Iterator<? extends T> it;
    private final AtomicLong requested = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile boolean canceled;

    IteratorSubscription(Flow.Subscriber<? super T> subscriber, Iterator<? extends T> it) {
      this.subscriber = subscriber;
      this.it = it;
    }

    void start() {
      wip.set(1); // nothing is emitted while onSubscribe runs (§1.3)
      subscriber.onSubscribe(this);
      drainLoop();
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        cancel();
        subscriber.onError(
            new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n));
        return;
      }
      for (; ; ) {
        long r = requested.get();
        long u = r + n < 0 ? Long.MAX_VALUE : r + n;
        if (requested.compareAndSet(r, u)) {
          break;
        }
      }
      if (wip.getAndIncrement() == 0) {
        drainLoop();
      }
    }

    private void drainLoop() {
      int missed = 1;
      for (; ; ) {
        long r = requested.get();
        long e = 0;
        while (e != r) {
          if (canceled) {
            return;
          }
          T next;
          try {
            if (!it.hasNext()) {
              canceled = true;
              subscriber.onComplete();
              return;
            }
            next = it.next();
          } catch (Throwable t) {
            canceled = true;
            subscriber.onError(t);
            return;
          }
          subscriber.onNext(next);
          e++;
        }
        if (canceled) {
          return;
        }
        // Demand used up: completion (or the iterator's failure) needs no demand (§1.4/§1.5), so
        // look ahead without taking the next message.
        try {
          if (!it.hasNext()) {
            canceled = true;
            subscriber.onComplete();
            return;
          }
        } catch (Throwable t) {
          canceled = true;
          subscriber.onError(t);
          return;
        }
        if (r != Long.MAX_VALUE && e != 0) {
          requested.addAndGet(-e);
        }
        missed = wip.addAndGet(-missed);
        if (missed == 0) {
          return;
        }
      }
    }

    @Override
    public void cancel() {
      canceled = true;
    }
  }

  private static final class BatchSubscriber implements Flow.Subscriber<Message> {
    private final int batch;
    private final int refill;
    private final Consumer<? super Message> onMessage;
    private volatile Flow.Subscription subscription;
    private int outstanding; // signals are serialized (§1.3)
    final CompletableFuture<Void> done =
        new CompletableFuture<>() {
          @Override
          public boolean cancel(boolean mayInterruptIfRunning) {
            boolean c = super.cancel(mayInterruptIfRunning);
            Flow.Subscription s = subscription;
            if (c && s != null) {
              s.cancel();
            }
            return c;
          }
        };

    BatchSubscriber(int batch, Consumer<? super Message> onMessage) {
      this.batch = batch;
      this.refill = Math.max(1, batch / 2);
      this.onMessage = onMessage;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (done.isDone()) {
        s.cancel();
        return;
      }
      outstanding = batch;
      s.request(batch);
    }

    @Override
    public void onNext(Message m) {
      if (done.isDone()) {
        m.release();
        return;
      }
      try {
        onMessage.accept(m);
      } catch (Throwable t) {
        subscription.cancel();
        done.completeExceptionally(t);
        return;
      }
      if (--outstanding <= batch - refill) {
        int more = batch - outstanding;
        outstanding = batch;
        subscription.request(more);
      }
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }
  }
}
