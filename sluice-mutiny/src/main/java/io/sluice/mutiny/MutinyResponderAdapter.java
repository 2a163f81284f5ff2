package io.sluice.mutiny;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.InboundPublisher;
import io.sluice.flavor.ResponseSubscriber;
import java.util.Objects;

/** Adapts a {@link MutinyResponder} to the core's {@link Responder}. */
final class MutinyResponderAdapter implements Responder {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(MutinyResponderAdapter.class);
  private final MutinyResponder handler;

  MutinyResponderAdapter(MutinyResponder handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public void fireAndForget(Message request) {
    quietly(handler.fireAndForget(request), "fireAndForget");
  }

  @Override
  public void metadataPush(Message metadata) {
    quietly(handler.metadataPush(metadata), "metadataPush");
  }

  private static void quietly(Uni<Void> u, String what) {
    if (u != null) {
      u.subscribe().with(v -> {}, e -> logger.debug("{} handler failed", what, e));
    }
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    Uni<Message> uni = handler.requestResponse(request);
    if (uni == null) {
      response.error(new NullPointerException("the responder returned a null Uni"));
      return new CancelOnCancel(null);
    }
    Cancellable c =
        uni.subscribe()
            .with(
                m -> {
                  if (m == null) {
                    response.complete();
                  } else {
                    response.nextAndComplete(m); // released by the core if the stream ended
                  }
                },
                response::error);
    return new CancelOnCancel(c);
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    return ResponseSubscriber.subscribe(
        handler.requestStream(request), new ResponseSubscriber(stream, null));
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    InboundPublisher inbound = new InboundPublisher(channel, inboundComplete);
    ResponseSubscriber s = new ResponseSubscriber(channel, inbound);
    Multi<Message> rest = new PublisherMulti(inbound);
    return ResponseSubscriber.subscribe(handler.requestChannel(first, rest), s);
  }

  /** A request-response's listener: cancels the handler's Uni when the requester cancels. */
  private static final class CancelOnCancel implements StreamListener {
    private final Cancellable cancellable;

    CancelOnCancel(Cancellable cancellable) {
      this.cancellable = cancellable;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      cancel();
    }

    @Override
    public void onCancel() {
      cancel();
    }

    private void cancel() {
      if (cancellable != null) {
        cancellable.cancel();
      }
    }
  }
}
