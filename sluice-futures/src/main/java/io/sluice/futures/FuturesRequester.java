package io.sluice.futures;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.RequesterPublisher;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * Starts interactions with the peer using JDK types only. Thread-safe.
 *
 * <p>Fire-and-forget, metadata-push and request-response send at once and return a future.
 * Request-stream and request-channel return a cold, single-use {@link Flow.Publisher}: nothing is
 * sent until it is subscribed and the subscriber calls {@code request(n)}; the first request's n
 * becomes the initial demand on the wire, later ones REQUEST_N, {@code cancel()} a CANCEL.
 *
 * <p><b>Threads.</b> Futures complete and subscribers are signalled on the connection's event
 * loop: never block in a callback there (use the {@code *Async} variants of {@link
 * CompletableFuture} for slow work).
 *
 * <p><b>Ownership.</b> Every method takes ownership of the message it is given, also when it
 * fails. Received messages belong to the caller, which must release them.
 */
public final class FuturesRequester {
  private final Requester requester;

  public FuturesRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Completes once the frame is handed to the transport. */
  public CompletableFuture<Void> fireAndForget(Message request) {
    Objects.requireNonNull(request, "request");
    SentFuture f = new SentFuture();
    requester.fireAndForget(request, f);
    return f;
  }

  /** Sends the message's metadata as a METADATA_PUSH. */
  public CompletableFuture<Void> metadataPush(Message metadata) {
    Objects.requireNonNull(metadata, "metadata");
    SentFuture f = new SentFuture();
    requester.metadataPush(metadata, f);
    return f;
  }

  /**
   * A request-response, sent at once. The future completes with the response ({@code null} if the
   * responder completed without one) or the error; {@link CompletableFuture#cancel canceling} it
   * cancels the stream (CANCEL), and a response arriving later is released.
   */
  public CompletableFuture<Message> requestResponse(Message request) {
    Objects.requireNonNull(request, "request");
    ResponseFuture f = new ResponseFuture();
    if (!requester.isOpen()) {
      request.release();
      f.completeExceptionally(RequesterPublisher.notOpen(requester));
      return f;
    }
    f.start(requester.requestResponse(request, f));
    return f;
  }

  /** A request-stream: a single-use publisher, see the class comment. */
  public Flow.Publisher<Message> requestStream(Message request) {
    return RequesterPublisher.requestStream(requester, Objects.requireNonNull(request, "request"));
  }

  /**
   * A request-channel: the first message of {@code outbound} travels in the REQUEST_CHANNEL frame,
   * the rest as the responder grants demand (this publisher's subscription is asked for exactly
   * that much). An empty {@code outbound} completes the result without sending anything.
   */
  public Flow.Publisher<Message> requestChannel(Flow.Publisher<Message> outbound) {
    return RequesterPublisher.requestChannel(requester, outbound);
  }

  /** The connection's allocator, for building messages. */
  public ByteBufAllocator alloc() {
    return requester.alloc();
  }

  /** See {@link Requester#availability()}: how much of the peer's lease is left, 0 to 1. */
  public double availability() {
    return requester.availability();
  }

  /** See {@link Requester#availability(int)}: as {@link #availability()} for a priority rank. */
  public double availability(int rank) {
    return requester.availability(rank);
  }

  public boolean isOpen() {
    return requester.isOpen();
  }

  /** Graceful close: CONNECTION_CLOSE, then live streams drain. */
  public void close() {
    requester.close();
  }

  /** Immediate close: live streams fail. */
  public void dispose() {
    requester.dispose();
  }

  /** Completes when the connection is closed. */
  public CompletableFuture<Void> onClose() {
    return requester.onClose();
  }

  /** The flavor-neutral requester underneath. */
  public Requester unwrap() {
    return requester;
  }

  /** Completes once a fire-and-forget or metadata-push is handed to the transport. */
  private static final class SentFuture extends CompletableFuture<Void> implements StreamListener {
    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {
      complete(null);
    }

    @Override
    public void onError(Throwable cause) {
      completeExceptionally(cause);
    }
  }

  /** The future of a request-response, which is also its stream listener. */
  private static final class ResponseFuture extends CompletableFuture<Message>
      implements StreamListener {
    private volatile StreamHandle handle;
    private Message response; // event loop only

    void start(StreamHandle h) {
      handle = h;
      if (isCancelled()) {
        h.cancel();
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean canceled = super.cancel(mayInterruptIfRunning);
      StreamHandle h = handle;
      if (canceled && h != null) {
        h.cancel();
      }
      return canceled;
    }

    @Override
    public void onNext(Message message) {
      if (response != null || isDone()) {
        message.release();
        return;
      }
      response = message;
    }

    @Override
    public void onComplete() {
      Message m = response;
      response = null;
      if (!complete(m) && m != null) {
        m.release();
      }
    }

    @Override
    public void onError(Throwable cause) {
      Message m = response;
      response = null;
      if (m != null) {
        m.release();
      }
      completeExceptionally(cause);
    }
  }
}
