package io.sluice.mutiny;

import io.netty.buffer.ByteBufAllocator;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamListener;
import io.sluice.flavor.RequesterPublisher;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts interactions with the peer, returning Mutiny types. Thread-safe.
 *
 * <p>Every returned {@code Uni}/{@code Multi} is lazy and single-use: nothing is sent until it is
 * subscribed (and, for a {@code Multi}, until the first {@code request(n)}, whose n becomes the
 * initial demand on the wire; later requests become REQUEST_N, cancel a CANCEL). Each is the core
 * stream's own {@link Flow.Publisher}: one object per stream is the subscription and the stream
 * listener. Events arrive on the connection's event loop: do not block in them ({@code
 * emitOn} for slow work).
 *
 * <p><b>Ownership.</b> The request message is owned by the returned source: released once sent,
 * or when canceled before sending. Received messages belong to the subscriber, which releases them.
 */
public final class MutinyRequester {
  private final Requester requester;

  public MutinyRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Completes (with null) when the frame is handed to the transport. */
  public Uni<Void> fireAndForget(Message request) {
    Objects.requireNonNull(request, "request");
    return sent(request, false);
  }

  /** Sends the message's metadata as a METADATA_PUSH. */
  public Uni<Void> metadataPush(Message metadata) {
    Objects.requireNonNull(metadata, "metadata");
    return sent(metadata, true);
  }

  private Uni<Void> sent(Message m, boolean metadataPush) {
    AtomicBoolean used = new AtomicBoolean();
    return Uni.createFrom()
        .emitter(
            emitter -> {
              if (!used.compareAndSet(false, true)) {
                emitter.fail(new IllegalStateException("a Sluice source allows one subscriber"));
                return;
              }
              StreamListener done =
                  new StreamListener() {
                    @Override
                    public void onNext(Message message) {
                      message.release();
                    }

                    @Override
                    public void onComplete() {
                      emitter.complete(null);
                    }

                    @Override
                    public void onError(Throwable cause) {
                      emitter.fail(cause);
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
   * A request-response: the item is the response, or {@code null} if the responder completed
   * without one. Canceling cancels the stream.
   */
  public Uni<Message> requestResponse(Message request) {
    return Uni.createFrom()
        .publisher(
            RequesterPublisher.requestResponse(
                requester, Objects.requireNonNull(request, "request")));
  }

  public Multi<Message> requestStream(Message request) {
    return new PublisherMulti(
        RequesterPublisher.requestStream(requester, Objects.requireNonNull(request, "request")));
  }

  /**
   * A request-channel: the first item of {@code outbound} travels in the REQUEST_CHANNEL frame, the
   * rest as the responder grants demand. An empty {@code outbound} completes the result without
   * sending anything.
   */
  public Multi<Message> requestChannel(Flow.Publisher<Message> outbound) {
    return new PublisherMulti(RequesterPublisher.requestChannel(requester, outbound));
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
  public Uni<Void> onClose() {
    return Uni.createFrom().completionStage(requester.onClose());
  }

  public Requester unwrap() {
    return requester;
  }
}
