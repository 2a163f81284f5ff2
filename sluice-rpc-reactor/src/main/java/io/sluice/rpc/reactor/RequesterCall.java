package io.sluice.rpc.reactor;

import com.google.protobuf.MessageLite;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ResponseMetadataListener;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The last {@link ClientCall} of an interceptor chain: runs the call over a requester through this
 * flavor's own call path ({@link ReactorClientCalls}, so deadlines, instrumentation and response
 * metadata behave exactly as without interceptors). A single-request call is sent at {@link
 * #halfClose} with the one request given; a streaming-request call starts at {@link #start} and
 * its requests flow through a queue as the transport asks for them ({@link #isReady}).
 *
 * <p><b>Threads.</b> As {@link ClientCall}; state shared with the transport's thread is atomic.
 * <b>Buffers.</b> None: the flavor path encodes each request into a message the requester owns.
 */
final class RequesterCall<Req extends MessageLite, Resp extends MessageLite> extends ClientCall<Req, Resp> {
  private final ReactorRequester requester;
  private final MethodDescriptor<Req, Resp> method;
  private final CallOptions options;
  private final Responses responses = new Responses();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Requests the transport asked for and was not sent yet (streaming requests). */
  private final AtomicLong outboundDemand = new AtomicLong();
  private volatile Listener<Resp> listener;
  private volatile Headers trailers = Headers.EMPTY;
  /** How the call ended, once it has; told to the listener once ({@link #deliverClose}). */
  private volatile Status closeStatus;
  private final AtomicBoolean closeDelivered = new AtomicBoolean();
  private CallOptions callOptions;
  private Sinks.Many<Req> outbound; // streaming requests
  private Req single; // a single-request call's request, until halfClose

  RequesterCall(ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options) {
    this.requester = requester;
    this.method = method;
    this.options = options;
  }

  @Override
  public void start(Listener<Resp> listener, Headers headers) {
    if (this.listener != null) {
      throw new IllegalStateException("the call was already started");
    }
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
    if (closed.get()) {
      deliverClose(); // cancelled before it started: nothing is sent
      return;
    }
    CallOptions o = headers.equals(options.headers()) ? options : options.withHeaders(headers);
    ResponseMetadataListener user = o.responseMetadata();
    if (user != null) {
      o = o.withResponseMetadata(new Tap(user));
    }
    callOptions = o;
    if (method.kind().clientStreams()) {
      outbound = Sinks.many().unicast().onBackpressureBuffer();
      Flux<Req> requests = outbound.asFlux().doOnRequest(this::transportRequested);
      Publisher<Resp> p =
          method.kind() == MethodKind.CLIENT_STREAMING
              ? ReactorClientCalls.clientStreaming(requester, method, o, requests)
              : ReactorClientCalls.bidiStreaming(requester, method, o, requests);
      Flux.from(p).subscribe(responses);
    }
  }

  private void transportRequested(long n) {
    long prev;
    long next;
    do {
      prev = outboundDemand.get();
      next = prev + n < 0 ? Long.MAX_VALUE : prev + n;
    } while (!outboundDemand.compareAndSet(prev, next));
    if (prev <= 0 && !closed.get()) {
      listener.onReady();
    }
  }

  @Override
  public void sendMessage(Req message) {
    java.util.Objects.requireNonNull(message, "message");
    if (listener == null) {
      throw new IllegalStateException("sendMessage before start");
    }
    if (closed.get()) {
      return; // the call is over: dropped, as grpc-java drops a message to a closed call
    }
    if (outbound != null) {
      outboundDemand.decrementAndGet();
      outbound.tryEmitNext(message); // fails only once the call is over
      return;
    }
    if (single != null) {
      throw new IllegalStateException(method.fullName() + " takes one request");
    }
    single = message;
  }

  @Override
  public void halfClose() {
    if (listener == null) {
      throw new IllegalStateException("halfClose before start");
    }
    if (closed.get()) {
      return;
    }
    if (outbound != null) {
      outbound.tryEmitComplete();
      return;
    }
    Req r = single;
    if (r == null) {
      close(Status.of(Status.Code.INTERNAL, method.fullName() + " was half-closed without its request"));
      return;
    }
    Publisher<Resp> p =
        switch (method.kind()) {
          case UNARY -> ReactorClientCalls.unary(requester, method, callOptions, r);
          case SERVER_STREAMING -> ReactorClientCalls.serverStreaming(requester, method, callOptions, r);
          default -> ReactorClientCalls.fireAndForget(requester, method, callOptions, r).then(Mono.<Resp>empty());
        };
    Flux.from(p).subscribe(responses);
  }

  @Override
  public void request(long n) {
    responses.requestMore(n);
  }

  @Override
  public void cancel(String message, Throwable cause) {
    responses.dispose();
    if (outbound != null) {
      outbound.tryEmitComplete();
    }
    close(Status.of(Status.Code.CANCELLED, message == null ? "cancelled by the client" : message).withCause(cause));
  }

  @Override
  public boolean isReady() {
    if (closed.get()) {
      return false;
    }
    return outbound == null || outboundDemand.get() > 0;
  }

  private void close(Status status) {
    if (closed.compareAndSet(false, true)) {
      closeStatus = status;
      deliverClose();
    }
  }

  /**
   * Tells the listener how the call ended, once, as soon as there are both a listener and an end:
   * a call cancelled before {@link #start} hears of it when it starts.
   */
  private void deliverClose() {
    Listener<Resp> l = listener;
    Status s = closeStatus;
    if (l != null && s != null && closeDelivered.compareAndSet(false, true)) {
      l.onClose(s, trailers);
    }
  }

  @Override
  public String toString() {
    return "call " + method.fullName();
  }

  /** Keeps the trailers for {@link Listener#onClose} and passes both sides on. */
  private final class Tap implements ResponseMetadataListener {
    private final ResponseMetadataListener user;

    Tap(ResponseMetadataListener user) {
      this.user = user;
    }

    @Override
    public void onHeaders(Headers headers) {
      try {
        user.onHeaders(headers);
      } finally {
        listener.onHeaders(headers);
      }
    }

    @Override
    public void onTrailers(Headers t) {
      trailers = t;
      user.onTrailers(t);
    }
  }

  /** The responses, passed to the listener as demanded by {@link #request}. */
  private final class Responses extends BaseSubscriber<Resp> {
    private long early; // guarded by this: demand before the subscription
    private boolean subscribed; // guarded by this

    void requestMore(long n) {
      if (n <= 0) {
        throw new IllegalArgumentException("request(" + n + "): must be positive");
      }
      synchronized (this) {
        if (!subscribed) {
          early = early + n < 0 ? Long.MAX_VALUE : early + n;
          return;
        }
      }
      request(n);
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      long n;
      synchronized (this) {
        subscribed = true;
        n = early;
        early = 0;
      }
      if (n > 0) {
        s.request(n);
      }
    }

    @Override
    protected void hookOnNext(Resp value) {
      if (!closed.get()) {
        listener.onMessage(value);
      }
    }

    @Override
    protected void hookOnComplete() {
      close(Status.OK);
    }

    @Override
    protected void hookOnError(Throwable t) {
      if (t instanceof StatusException se) {
        if (trailers.isEmpty() && !se.trailers().isEmpty()) {
          trailers = se.trailers();
        }
        close(se.status());
      } else {
        close(Status.fromThrowable(t));
      }
    }
  }
}
