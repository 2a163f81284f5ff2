package io.sluice.reactor.tck;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.SubscriberProbe;
import org.reactivestreams.tck.TestEnvironment;

/**
 * Stands in for the protocol core around one stream, to drive a Sluice subscriber under the TCK's
 * subscriber verifications: it is the {@link StreamHandle} the subscriber forwards into (and the
 * {@link Requester} whose {@code requestChannel} a channel calls with its first message), and it
 * signals the stream's {@link StreamListener} as the core does: on one "event loop" thread, never
 * concurrently.
 *
 * <p>Every message handed to it is reported to the probe (if any) and released, as the core
 * releases what it sends. It also checks that the subscriber never forwards more messages than the
 * demand the peer granted through {@link StreamListener#onRequest} (for a channel, plus its first
 * message), which the core would treat as a §1.1 violation.
 */
final class FakeStream implements StreamHandle, Requester {
  private final TestEnvironment env;
  private final SubscriberProbe<Message> probe; // null for blackbox tests
  private final Executor loop;

  // On the loop.
  private StreamListener listener;
  private long parkedDemand;

  private final Object lock = new Object();
  private long granted; // guarded by lock
  private long forwarded; // guarded by lock
  private volatile boolean started;

  FakeStream(TestEnvironment env, SubscriberProbe<Message> probe, Executor loop) {
    this.env = env;
    this.probe = probe;
    this.loop = loop;
  }

  /** A responder stream: {@code listener} is what ResponderAdapter returned for it. */
  void attach(StreamListener listener) {
    loop.execute(() -> start(listener));
  }

  /** On the loop: the stream's listener is known; hand it the demand granted so far. */
  private void start(StreamListener l) {
    listener = l;
    started = true;
    long n = parkedDemand;
    parkedDemand = 0;
    if (n > 0) {
      synchronized (lock) {
        granted += n;
      }
      l.onRequest(n);
    }
  }

  /** The peer grants {@code n} more: delivered now if the stream started, else once it does. */
  void grant(long n) {
    loop.execute(
        () -> {
          if (listener == null) {
            parkedDemand += n;
            return;
          }
          synchronized (lock) {
            granted += n;
          }
          listener.onRequest(n);
        });
  }

  /** The peer cancels the stream (for a channel: its inbound half too). */
  void peerCancel() {
    loop.execute(
        () -> {
          if (listener != null) {
            listener.onCancel();
          }
        });
  }

  boolean started() {
    return started;
  }

  private void forward(Message m) {
    boolean tooMany;
    synchronized (lock) {
      tooMany = ++forwarded > granted;
    }
    try {
      if (tooMany) {
        env.flop("forwarded " + m + " beyond the demand the peer granted");
      }
      if (probe != null) {
        probe.registerOnNext(m);
      }
    } finally {
      m.release();
    }
  }

  // ---- Requester: only what a channel uses --------------------------------------------------

  @Override
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
    synchronized (lock) {
      granted++; // the first message rides in REQUEST_CHANNEL
    }
    forward(first);
    if (complete) {
      complete();
    }
    loop.execute(() -> start(listener));
    return this;
  }

  @Override
  public void fireAndForget(Message request, StreamListener listener) {
    request.release();
    throw new UnsupportedOperationException();
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    request.release();
    throw new UnsupportedOperationException();
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    request.release();
    throw new UnsupportedOperationException();
  }

  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    metadata.release();
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}

  @Override
  public void dispose() {}

  @Override
  public CompletableFuture<Void> onClose() {
    return new CompletableFuture<>();
  }

  // ---- StreamHandle ---------------------------------------------------------------------------

  @Override
  public void request(long n) {
    // Inbound demand: these tests send nothing inbound.
  }

  @Override
  public void cancel() {}

  @Override
  public void next(Message message) {
    forward(message);
  }

  @Override
  public void complete() {
    if (probe != null) {
      probe.registerOnComplete();
    }
  }

  @Override
  public void error(Throwable cause) {
    if (probe != null) {
      probe.registerOnError(cause);
    }
  }

  @Override
  public Executor executor() {
    return loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return PooledByteBufAllocator.DEFAULT;
  }
}
