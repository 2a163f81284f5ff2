package io.sluice.rxjava;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.core.SingleObserver;
import io.reactivex.rxjava3.disposables.Disposable;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.InboundPublisher;
import io.sluice.flavor.ResponseSubscriber;
import java.util.Objects;

/** Adapts an {@link RxResponder} to the core's {@link Responder}. */
final class RxResponderAdapter implements Responder {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(RxResponderAdapter.class);
  private final RxResponder handler;

  RxResponderAdapter(RxResponder handler) {
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

  private static void quietly(Completable c, String what) {
    if (c != null) {
      c.subscribe(() -> {}, e -> logger.debug("{} handler failed", what, e));
    }
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    Single<Message> single = handler.requestResponse(request);
    ResponseObserver o = new ResponseObserver(response);
    if (single == null) {
      response.error(new NullPointerException("the responder returned a null Single"));
    } else {
      single.subscribe(o);
    }
    return o.listener;
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
    return ResponseSubscriber.subscribe(
        handler.requestChannel(first, Flowable.fromPublisher(inbound)), s);
  }

  /** Subscribes to the handler's Single; its listener disposes it when the requester cancels. */
  static final class ResponseObserver implements SingleObserver<Message> {
    private final StreamHandle handle;
    private volatile Disposable upstream;
    private volatile boolean canceled;
    final StreamListener listener =
        new StreamListener() {
          @Override
          public void onNext(Message message) {
            message.release();
          }

          @Override
          public void onComplete() {}

          @Override
          public void onError(Throwable cause) {
            dispose();
          }

          @Override
          public void onCancel() {
            dispose();
          }
        };

    ResponseObserver(StreamHandle handle) {
      this.handle = handle;
    }

    private void dispose() {
      canceled = true;
      Disposable d = upstream;
      if (d != null) {
        d.dispose();
      }
    }

    @Override
    public void onSubscribe(Disposable d) {
      upstream = d;
      if (canceled) {
        d.dispose();
      }
    }

    @Override
    public void onSuccess(Message m) {
      handle.nextAndComplete(m); // released by the core if the stream already ended
    }

    @Override
    public void onError(Throwable e) {
      handle.error(e);
    }
  }
}
