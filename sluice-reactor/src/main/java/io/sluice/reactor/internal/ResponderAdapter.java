package io.sluice.reactor.internal;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.CanceledException;
import io.sluice.reactor.ReactorResponder;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * Adapts a {@link ReactorResponder} to the core's {@link Responder}: each response publisher is
 * subscribed by one object that forwards to the stream handle, pulling only the demand the core
 * hands it.
 */
public final class ResponderAdapter implements Responder {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(ResponderAdapter.class);
  private final ReactorResponder handler;

  /**
   * @throws NullPointerException if {@code handler} is null (an acceptor or responder function
   *     that returned null): refused here, when the connection starts, rather than failing every
   *     request it would have handled
   */
  public ResponderAdapter(ReactorResponder handler) {
    this.handler =
        Objects.requireNonNull(
            handler,
            "the acceptor or responder function returned null (return a ReactorResponder that"
                + " refuses requests instead, e.g. new ReactorResponder() {})");
  }

  @Override
  public void fireAndForget(Message request) {
    subscribeQuietly(handler.fireAndForget(request), "fireAndForget");
  }

  @Override
  public void metadataPush(Message metadata) {
    subscribeQuietly(handler.metadataPush(metadata), "metadataPush");
  }

  private static void subscribeQuietly(Mono<Void> mono, String what) {
    if (mono == null) {
      return;
    }
    mono.subscribe(null, e -> logger.debug("{} handler failed", what, e));
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    Mono<Message> p = handler.requestResponse(request);
    if (p instanceof Fuseable.ScalarCallable) {
      // Mono.just / empty / error: the answer is known now, so it goes out without a
      // subscription (as reactor's own operators treat scalar sources). A request-response answer
      // needs no demand.
      answerNow(p, response);
      return StreamListener.DISCARDING;
    }
    ResponseSubscriber s = new ResponseSubscriber(response, true);
    subscribe(p, s, response);
    return s.listener;
  }


  @SuppressWarnings("unchecked")
  private static void answerNow(Mono<Message> scalar, StreamHandle response) {
    Message m;
    try {
      m = ((Callable<Message>) scalar).call();
    } catch (Throwable e) {
      response.error(Exceptions.unwrap(e));
      return;
    }
    if (m == null) {
      response.complete();
    } else {
      response.nextAndComplete(m);
    }
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    ResponseSubscriber s = new ResponseSubscriber(stream, false);
    subscribe(handler.requestStream(request), s, stream);
    return s.listener;
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    ChannelInbound inbound = new ChannelInbound(channel, inboundComplete);
    ResponseSubscriber s = new ResponseSubscriber(channel, false);
    s.inbound = inbound;
    subscribe(handler.requestChannel(first, inbound), s, channel);
    return s.listener;
  }

  private static void subscribe(Publisher<Message> p, ResponseSubscriber s, StreamHandle h) {
    if (p == null) {
      h.error(new NullPointerException("the responder returned a null publisher"));
      return;
    }
    p.subscribe(s);
  }

  /**
   * Subscribes to a response publisher and forwards to the handle. Demand comes only from the
   * core ({@link StreamListener#onRequest}), parked until the subscription arrives.
   */
  static final class ResponseSubscriber extends Operators.DeferredSubscription
      implements CoreSubscriber<Message> {
    private final StreamHandle handle;
    private final boolean single;
    private boolean sent;
    ChannelInbound inbound;
    final StreamListener listener =
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
            ResponseSubscriber.this.cancel();
            if (inbound != null) {
              inbound.fail(cause);
            }
          }

          @Override
          public void onRequest(long n) {
            ResponseSubscriber.this.request(n);
          }

          @Override
          public void onCancel() {
            ResponseSubscriber.this.cancel();
            if (inbound != null) {
              inbound.fail(new CanceledException("the requester canceled the channel"));
            }
          }
        };

    ResponseSubscriber(StreamHandle handle, boolean single) {
      this.handle = handle;
      this.single = single;
    }

    @Override
    public void onSubscribe(Subscription s) {
      set(s);
    }

    @Override
    public void onNext(Message m) {
      Objects.requireNonNull(m, "onNext(null) (Reactive Streams §2.13)");
      if (single) {
        sent = true;
        handle.nextAndComplete(m);
      } else {
        handle.next(m);
      }
    }

    @Override
    public void onError(Throwable t) {
      Objects.requireNonNull(t, "onError(null) (Reactive Streams §2.13)");
      handle.error(t);
    }

    @Override
    public void onComplete() {
      if (!single || !sent) {
        handle.complete();
      }
      if (inbound != null) {
        inbound.outboundCompleted();
      }
    }
  }

  /**
   * The inbound half of a responder's channel, handed to the handler as a Flux.
   *
   * <p>The subscriber becomes visible to the loop only once its {@code onSubscribe} has returned,
   * and positive demand signalled inside it is passed on only then, so no signal can reach it while
   * {@code onSubscribe} runs (§1.3); a terminal signal arriving meanwhile is delivered after it. A
   * canceled subscription forgets its subscriber (§3.13).
   */
  static final class ChannelInbound extends Flux<Message> implements Subscription {
    private final StreamHandle handle;
    // Set once onSubscribe has returned; null again once canceled.
    private CoreSubscriber<? super Message> actual;
    private boolean subscribed; // guarded by this
    private volatile boolean subscribing; // guarded by this when true
    private long parkedDemand; // guarded by this: demand signalled inside onSubscribe
    private boolean terminated; // guarded by this
    private Throwable error; // guarded by this
    private volatile boolean canceled;
    private volatile boolean outboundDone; // the handler's response completed

    ChannelInbound(StreamHandle handle, boolean complete) {
      this.handle = handle;
      this.terminated = complete;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Message> s) {
      synchronized (this) {
        if (subscribed) {
          Operators.error(s, new IllegalStateException("the channel's inbound allows one subscriber"));
          return;
        }
        subscribed = true;
        subscribing = true;
      }
      s.onSubscribe(this);
      boolean deliverTerminal;
      Throwable e;
      long parked;
      synchronized (this) {
        subscribing = false;
        if (!canceled) {
          actual = s;
        }
        deliverTerminal = terminated;
        e = error;
        parked = parkedDemand;
        parkedDemand = 0;
      }
      if (canceled) {
        return;
      }
      if (deliverTerminal) {
        if (e != null) {
          s.onError(e);
        } else {
          s.onComplete();
        }
      } else if (parked > 0) {
        handle.request(parked);
      }
    }

    @Override
    public void request(long n) {
      if (canceled) {
        return;
      }
      if (subscribing && n > 0) {
        synchronized (this) {
          if (subscribing) {
            parkedDemand = Operators.addCap(parkedDemand, n);
            return;
          }
        }
      }
      handle.request(n);
    }

    @Override
    public void cancel() {
      // No frame while the handler's response runs (a responder cannot stop only the requester's
      // half then): the requester stops once its granted credit is used; what arrives is
      // released. Once the response has completed, the requester is told (see outboundCompleted).
      canceled = true;
      actual = null;
      if (outboundDone) {
        handle.cancel();
      }
    }

    /**
     * The handler's response completed. If the handler canceled this inbound half, nobody will
     * read the requester's messages: cancel the stream, which tells the requester to stop sending
     * (CANCEL) instead of leaving the channel live on both ends. (An inbound not subscribed yet is
     * left alone: a handler may hand it to someone who subscribes later.)
     */
    void outboundCompleted() {
      outboundDone = true;
      if (canceled) {
        handle.cancel();
      }
    }

    void next(Message m) {
      CoreSubscriber<? super Message> a = actual;
      if (canceled || a == null) {
        m.release();
        return;
      }
      a.onNext(m);
    }

    void complete() {
      terminate(null);
    }

    void fail(Throwable t) {
      terminate(t);
    }

    private void terminate(Throwable t) {
      CoreSubscriber<? super Message> a;
      synchronized (this) {
        if (terminated) {
          return;
        }
        terminated = true;
        error = t;
        a = actual;
      }
      if (a != null && !canceled) {
        if (t != null) {
          a.onError(t);
        } else {
          a.onComplete();
        }
      }
    }
  }
}
