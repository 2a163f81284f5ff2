package io.sluice.futures;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.InboundPublisher;
import io.sluice.flavor.ResponseSubscriber;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/** Adapts a {@link FuturesResponder} to the core's {@link Responder}. */
final class FuturesResponderAdapter implements Responder {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(FuturesResponderAdapter.class);
  private final FuturesResponder handler;

  FuturesResponderAdapter(FuturesResponder handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public void fireAndForget(Message request) {
    try {
      handler.fireAndForget(request);
    } catch (Throwable t) {
      logger.debug("fireAndForget handler failed", t);
    }
  }

  @Override
  public void metadataPush(Message metadata) {
    try {
      handler.metadataPush(metadata);
    } catch (Throwable t) {
      logger.debug("metadataPush handler failed", t);
    }
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    CompletionStage<Message> stage = handler.requestResponse(request);
    if (stage == null) {
      response.error(new NullPointerException("the responder returned a null CompletionStage"));
      return StreamListener.DISCARDING;
    }
    stage.whenComplete(
        (m, e) -> {
          if (e != null) {
            response.error(unwrap(e));
          } else if (m == null) {
            response.complete();
          } else {
            response.nextAndComplete(m); // released by the core if the stream already ended
          }
        });
    return new Listeners.CancelStage(stage);
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
    return ResponseSubscriber.subscribe(handler.requestChannel(first, inbound), s);
  }

  static Throwable unwrap(Throwable e) {
    if (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
      return e.getCause();
    }
    return e;
  }
}
