package io.sluice.rxjava;

import io.netty.buffer.ByteBufAllocator;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamListener;
import io.sluice.flavor.RequesterPublisher;
import java.util.Objects;
import org.reactivestreams.Publisher;

/**
 * Starts interactions with the peer, returning rxjava3 types. Thread-safe.
 *
 * <p>Every returned source is cold and single-use: nothing is sent until it is subscribed (and, for
 * flowables, until the first {@code request(n)}, whose n becomes the initial demand on the wire;
 * later requests become REQUEST_N, cancel a CANCEL). The {@code Flowable}s are the core stream's
 * own publisher behind {@link Flowable#fromPublisher}: one object per stream is the subscription
 * and the stream listener, no operator or queue in between. Signals arrive on the connection's
 * event loop: do not block in them ({@code observeOn} for slow work).
 *
 * <p><b>Ownership.</b> The request message is owned by the returned source: released once sent,
 * or when disposed before sending. Received messages belong to the subscriber, which releases them.
 */
public final class RxRequester {
  private final Requester requester;

  public RxRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Completes when the frame is handed to the transport. */
  public Completable fireAndForget(Message request) {
    Objects.requireNonNull(request, "request");
    return sent(request, false);
  }

  /** Sends the message's metadata as a METADATA_PUSH. */
  public Completable metadataPush(Message metadata) {
    Objects.requireNonNull(metadata, "metadata");
    return sent(metadata, true);
  }

  private Completable sent(Message m, boolean metadataPush) {
    java.util.concurrent.atomic.AtomicBoolean used = new java.util.concurrent.atomic.AtomicBoolean();
    return Completable.unsafeCreate(
        observer -> {
          if (!used.compareAndSet(false, true)) {
            observer.onSubscribe(io.reactivex.rxjava3.disposables.Disposable.empty());
            observer.onError(new IllegalStateException("a Sluice source allows one subscriber"));
            return;
          }
          observer.onSubscribe(io.reactivex.rxjava3.disposables.Disposable.empty());
          StreamListener done =
              new StreamListener() {
                @Override
                public void onNext(Message message) {
                  message.release();
                }

                @Override
                public void onComplete() {
                  observer.onComplete();
                }

                @Override
                public void onError(Throwable cause) {
                  observer.onError(cause);
                }
              };
          if (metadataPush) {
            requester.metadataPush(m, done);
          } else {
            requester.fireAndForget(m, done);
          }
        });
  }

  /**
   * A request-response. A response that completes without a message fails the {@code Single} with
   * {@link java.util.NoSuchElementException}; disposing cancels the stream.
   */
  public Single<Message> requestResponse(Message request) {
    return Single.fromPublisher(
        RequesterPublisher.requestResponse(requester, Objects.requireNonNull(request, "request")));
  }

  public Flowable<Message> requestStream(Message request) {
    return Flowable.fromPublisher(
        RequesterPublisher.requestStream(requester, Objects.requireNonNull(request, "request")));
  }

  /**
   * A request-channel: the first message of {@code outbound} travels in the REQUEST_CHANNEL frame,
   * the rest as the responder grants demand. An empty {@code outbound} completes the result
   * without sending anything.
   */
  public Flowable<Message> requestChannel(Publisher<Message> outbound) {
    return Flowable.fromPublisher(RequesterPublisher.requestChannel(requester, outbound));
  }

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

  /** Immediate close. */
  public void dispose() {
    requester.dispose();
  }

  /** Completes when the connection is closed. */
  public Completable onClose() {
    return Completable.fromCompletionStage(requester.onClose());
  }

  public Requester unwrap() {
    return requester;
  }
}
