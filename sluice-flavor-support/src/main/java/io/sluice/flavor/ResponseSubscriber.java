package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.CanceledException;
import java.util.Objects;
import java.util.concurrent.Flow;
import org.reactivestreams.Publisher;

/**
 * Responder side of a request-stream or request-channel: subscribes to the handler's response
 * publisher (Reactive Streams or {@link Flow}) and forwards its messages to the stream handle. Its
 * demand comes only from the peer ({@link StreamListener#onRequest}), parked until the
 * subscription arrives; the peer's cancel cancels the subscription.
 *
 * <pre>{@code
 * ResponseSubscriber s = new ResponseSubscriber(handle, inboundOrNull);
 * return ResponseSubscriber.subscribe(handlerResult, s);
 * }</pre>
 *
 * <p><b>Threads.</b> The core calls the {@link #listener()} on the connection's event loop. The
 * response publisher may signal this subscriber on any thread, one signal at a time (§1.3); each
 * signal goes straight to the thread-safe {@link StreamHandle}.
 *
 * <p><b>Buffers.</b> Each message the response publisher emits is handed to {@link
 * StreamHandle#next}, which owns it from then on. A channel's inbound messages go to the {@link
 * InboundPublisher}, whose subscriber owns them; for a stream (no inbound half) they are released
 * here.
 */
public final class ResponseSubscriber extends Upstream {
  private final StreamHandle handle;
  private final InboundPublisher inbound;
  private final StreamListener listener =
      new StreamListener() {
        @Override
        public void onNext(Message message) {
          if (inbound != null) {
            inbound.next(message);
          } else {
            message.release();
          }
        }

        @Override
        public void onComplete() {
          if (inbound != null) {
            inbound.complete();
          }
        }

        @Override
        public void onError(Throwable cause) {
          cancelUpstream();
          if (inbound != null) {
            inbound.fail(cause);
          }
        }

        @Override
        public void onRequest(long n) {
          requestUpstream(n);
        }

        @Override
        public void onCancel() {
          cancelUpstream();
          if (inbound != null) {
            inbound.fail(new CanceledException("the requester canceled the channel"));
          }
        }
      };

  /**
   * @param handle the stream's handle
   * @param inbound for a channel, the inbound half handed to the handler; {@code null} for a stream
   */
  public ResponseSubscriber(StreamHandle handle, InboundPublisher inbound) {
    this.handle = Objects.requireNonNull(handle, "handle");
    this.inbound = inbound;
  }

  /** The listener to return to the core. */
  public StreamListener listener() {
    return listener;
  }

  /** Subscribes {@code s} to {@code response}, or fails the stream if the handler returned null. */
  public static StreamListener subscribe(Publisher<Message> response, ResponseSubscriber s) {
    if (response == null) {
      s.handle.error(new NullPointerException("the responder returned a null publisher"));
    } else {
      response.subscribe(s);
    }
    return s.listener;
  }

  /** As {@link #subscribe(Publisher, ResponseSubscriber)}, for a {@link Flow.Publisher}. */
  public static StreamListener subscribe(Flow.Publisher<Message> response, ResponseSubscriber s) {
    if (response == null) {
      s.handle.error(new NullPointerException("the responder returned a null publisher"));
    } else {
      response.subscribe(s);
    }
    return s.listener;
  }

  @Override
  public void onNext(Message m) {
    Objects.requireNonNull(m, "onNext(null) (Reactive Streams §2.13)");
    handle.next(m);
  }

  @Override
  public void onError(Throwable t) {
    Objects.requireNonNull(t, "onError(null) (Reactive Streams §2.13)");
    handle.error(t);
  }

  @Override
  public void onComplete() {
    handle.complete();
    if (inbound != null) {
      inbound.outboundCompleted();
    }
  }
}
