package io.sluice.flavor;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import java.util.Objects;
import java.util.concurrent.Flow;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;

/**
 * A requester-side interaction as a cold, single-use publisher that speaks both Reactive Streams
 * and {@link Flow}: request-response (at most one message), request-stream and request-channel.
 * Flavors wrap it in their own types (an rxjava {@code Flowable}, a mutiny {@code Multi}) or expose
 * it as is (the futures flavor's {@code Flow.Publisher}).
 *
 * <p>Nothing is sent before the subscriber's first {@code request(n)}, which becomes the initial
 * demand of the REQUEST_STREAM / REQUEST_CHANNEL frame; later requests become REQUEST_N frames and
 * {@code cancel()} a CANCEL. The request message (or, for a channel, the outbound publisher) is
 * owned by this publisher: released once sent, or when the subscription ends before sending. A
 * publisher never subscribed keeps its message: subscribe to what you create.
 *
 * <p>Received messages belong to the subscriber, which must release them.
 *
 * <p><b>Threads.</b> {@code subscribe}, {@code request} and {@code cancel} may be called from any
 * thread; {@code onSubscribe} runs on the subscribing thread. Signals from the peer ({@code
 * onNext}, {@code onComplete}, {@code onError}) run on the connection's event loop and must not
 * block. A refused subscriber, a bad {@code request(n)} or a channel's failed outbound publisher is
 * signalled on the thread that caused it. Messages that arrive after {@code cancel} are released
 * here.
 */
public abstract class RequesterPublisher implements Publisher<Message>, Flow.Publisher<Message> {

  RequesterPublisher() {}

  /** A request-response: at most one message, then completion. */
  public static RequesterPublisher requestResponse(Requester requester, Message request) {
    return new StreamPublisher(requester, request, false);
  }

  /** A request-stream. */
  public static RequesterPublisher requestStream(Requester requester, Message request) {
    return new StreamPublisher(requester, request, true);
  }

  /**
   * A request-channel whose outbound messages come from a Reactive Streams publisher: its first
   * message rides in REQUEST_CHANNEL, the rest are pulled as the responder grants demand. An empty
   * outbound completes the result without sending anything.
   */
  public static RequesterPublisher requestChannel(Requester requester, Publisher<Message> outbound) {
    Objects.requireNonNull(outbound, "outbound");
    return new ChannelPublisher(requester, outbound);
  }

  /** A request-channel whose outbound messages come from a {@link Flow.Publisher}. */
  public static RequesterPublisher requestChannel(
      Requester requester, Flow.Publisher<Message> outbound) {
    Objects.requireNonNull(outbound, "outbound");
    return new ChannelPublisher(requester, outbound);
  }

  @Override
  public final void subscribe(Subscriber<? super Message> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber (Reactive Streams §1.9)");
    subscribe(subscriber, null);
  }

  @Override
  public final void subscribe(Flow.Subscriber<? super Message> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber (Reactive Streams §1.9)");
    subscribe(null, subscriber);
  }

  abstract void subscribe(Subscriber<? super Message> rs, Flow.Subscriber<? super Message> flow);

  /** The error for a request on a connection that is closed or closing. */
  public static Throwable notOpen(Requester requester) {
    return requester.onClose().isDone()
        ? new ConnectionErrorException("connection closed")
        : new ConnectionCloseException("connection is closing; no new requests");
  }
}
