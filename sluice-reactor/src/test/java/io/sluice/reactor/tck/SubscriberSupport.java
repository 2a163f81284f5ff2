package io.sluice.reactor.tck;

import io.sluice.Message;
import io.sluice.StreamListener;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.RequestChannelFlux;
import io.sluice.reactor.internal.ResponderAdapter;
import java.util.concurrent.Executor;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.SubscriberProbe;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.SubscriberPuppet;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.WhiteboxSubscriberProbe;
import org.reactivestreams.tck.TestEnvironment;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * Reaches the subscribers Sluice puts on user publishers the way Sluice itself creates them, and
 * wires each to a {@link FakeStream}:
 *
 * <ul>
 *   <li>{@link #responseSubscriber}: the subscriber {@link ResponderAdapter} puts on a responder's
 *       response Flux (ResponseSubscriber), obtained by giving the adapter a responder whose
 *       request-stream answer captures its subscriber. Demand and cancel arrive through the stream
 *       listener the adapter returned, as from the core.
 *   <li>{@link #channelOutbound}: the subscriber {@link RequestChannelFlux} puts on the user's
 *       outbound publisher, obtained by starting a channel (a downstream subscriber requests) whose
 *       outbound publisher captures its subscriber. The fake connection receives the first message
 *       in {@code requestChannel}, later ones through the handle.
 * </ul>
 */
final class SubscriberSupport {
  private SubscriberSupport() {}

  /** A subscriber under test and the fake core around it. */
  static final class Wired {
    final Subscriber<Message> subscriber;
    final FakeStream stream;
    /** Cancels from the local side (the channel's downstream); null where there is none. */
    final Subscription downstream;

    Wired(Subscriber<Message> subscriber, FakeStream stream, Subscription downstream) {
      this.subscriber = subscriber;
      this.stream = stream;
      this.downstream = downstream;
    }

    /** The TCK's puppet: demand granted by the peer; cancel from the peer once the stream runs. */
    SubscriberPuppet puppet() {
      return new SubscriberPuppet() {
        @Override
        public void triggerRequest(long elements) {
          stream.grant(elements);
        }

        @Override
        public void signalCancel() {
          if (downstream != null && !stream.started()) {
            downstream.cancel(); // before the channel started: the local subscriber cancels
          } else {
            stream.peerCancel();
          }
        }
      };
    }
  }

  /** A response Flux that keeps the subscriber it gets. */
  private static final class Capture extends Flux<Message> {
    CoreSubscriber<? super Message> subscriber;

    @Override
    public void subscribe(CoreSubscriber<? super Message> actual) {
      subscriber = actual;
    }
  }

  /** Builds one subscriber under test, wired to a fake core: {@link #responseSubscriber} or {@link #channelOutbound}. */
  @FunctionalInterface
  interface Wiring {
    Wired wire(TestEnvironment env, SubscriberProbe<Message> probe, Executor loop);
  }

  @SuppressWarnings("unchecked")
  static Wired responseSubscriber(
      TestEnvironment env, SubscriberProbe<Message> probe, Executor loop) {
    Capture capture = new Capture();
    ResponderAdapter adapter =
        new ResponderAdapter(
            new ReactorResponder() {
              @Override
              public Flux<Message> requestStream(Message request) {
                request.release();
                return capture;
              }
            });
    FakeStream stream = new FakeStream(env, probe, loop);
    StreamListener listener = adapter.requestStream(Messages.pooled("request"), stream);
    stream.attach(listener);
    return new Wired((Subscriber<Message>) capture.subscriber, stream, null);
  }

  @SuppressWarnings("unchecked")
  static Wired channelOutbound(
      TestEnvironment env, SubscriberProbe<Message> probe, Executor loop) {
    Capture capture = new Capture();
    FakeStream stream = new FakeStream(env, probe, loop);
    Subscription[] downstream = new Subscription[1];
    new RequestChannelFlux(stream, capture)
        .subscribe(
            new CoreSubscriber<Message>() {
              @Override
              public void onSubscribe(Subscription s) {
                downstream[0] = s;
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(Message m) {
                m.release();
              }

              // Before the first outbound message the channel has not started: the outbound's
              // completion or error ends the channel, and surfaces here.
              @Override
              public void onError(Throwable t) {
                if (probe != null) {
                  probe.registerOnError(t);
                }
              }

              @Override
              public void onComplete() {
                if (probe != null) {
                  probe.registerOnComplete();
                }
              }
            });
    if (capture.subscriber == null) {
      throw new AssertionError("the channel did not subscribe to its outbound publisher");
    }
    return new Wired((Subscriber<Message>) capture.subscriber, stream, downstream[0]);
  }

  /**
   * For whitebox tests: the subscriber under test, with its onSubscribe reported to the probe.
   * Everything else goes straight to it; what it forwards is reported by the {@link FakeStream}.
   */
  static Subscriber<Message> whitebox(Wired w, WhiteboxSubscriberProbe<Message> probe) {
    return new Subscriber<Message>() {
      @Override
      public void onSubscribe(Subscription s) {
        w.subscriber.onSubscribe(s);
        probe.registerOnSubscribe(w.puppet());
      }

      @Override
      public void onNext(Message m) {
        w.subscriber.onNext(m);
      }

      @Override
      public void onError(Throwable t) {
        w.subscriber.onError(t);
      }

      @Override
      public void onComplete() {
        w.subscriber.onComplete();
      }

      @Override
      public String toString() {
        return "Whitebox(" + w.subscriber + ")";
      }
    };
  }
}
