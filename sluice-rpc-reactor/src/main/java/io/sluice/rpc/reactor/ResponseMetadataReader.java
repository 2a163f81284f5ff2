package io.sluice.rpc.reactor;

import io.sluice.Message;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ResponseMetadataListener;
import io.sluice.rpc.rsocket.ResponseMetadataCodec;
import io.sluice.rpc.rsocket.RpcErrors;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Reads the response metadata of a call whose caller asked for it (docs/rpc-wire-format.md,
 * "Response headers and trailers") and hands it to the call's {@link ResponseMetadataListener}:
 * the headers from the first response (or {@link Headers#EMPTY} when it carries none), the
 * trailers from the final metadata-only frame, or from the ERROR's data, or {@link Headers#EMPTY}.
 * Metadata-only frames are released here, never passed on.
 *
 * <p>For a stream or channel ({@code reserve}) it adds one to the first demand it passes upstream:
 * the server sends its final metadata-only frame with that credit and never a response message.
 *
 * <p><b>Threads.</b> Signals come from the transport one at a time (the connection's event loop).
 * Holds no buffers beyond the message being handled.
 */
final class ResponseMetadataReader extends Flux<Message> {
  private final Publisher<Message> source;
  private final ResponseMetadataListener listener;
  private final boolean reserve;

  ResponseMetadataReader(Publisher<Message> source, ResponseMetadataListener listener, boolean reserve) {
    this.source = source;
    this.listener = listener;
    this.reserve = reserve;
  }

  @Override
  public void subscribe(CoreSubscriber<? super Message> actual) {
    source.subscribe(new Reader(actual, listener, reserve));
  }

  private static final class Reader implements CoreSubscriber<Message>, Subscription {
    private final CoreSubscriber<? super Message> actual;
    private final ResponseMetadataListener listener;
    private volatile boolean reserve; // changed under this: the extra credit is still to be added
    private Subscription upstream;
    private boolean headersDone;
    private Headers trailers;
    private boolean done;

    Reader(CoreSubscriber<? super Message> actual, ResponseMetadataListener listener, boolean reserve) {
      this.actual = actual;
      this.listener = listener;
      this.reserve = reserve;
    }

    @Override
    public Context currentContext() {
      return actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
      if (Operators.validate(upstream, s)) {
        upstream = s;
        actual.onSubscribe(this);
      }
    }

    @Override
    public void onNext(Message m) {
      if (done) {
        m.release();
        return;
      }
      if (m.hasMetadata()) {
        ResponseMetadataCodec.Decoded d;
        try {
          d = ResponseMetadataCodec.decode(m.metadata());
        } catch (RuntimeException e) {
          m.release();
          done = true;
          upstream.cancel();
          trailers(trailers == null ? Headers.EMPTY : trailers); // the call ends: once, as always
          actual.onError(e);
          return;
        }
        if (d.headers() != null) {
          headers(d.headers());
        }
        if (d.trailers() != null) {
          trailers = d.trailers();
        }
        if (d.noMessage()) {
          m.release(); // the final frame, sent with the extra credit: nothing to replace
          return;
        }
      }
      headers(Headers.EMPTY);
      actual.onNext(m);
    }

    private void headers(Headers h) {
      if (!headersDone) {
        headersDone = true;
        try {
          listener.onHeaders(h);
        } catch (RuntimeException ignored) {
          // A listener must not break the call.
        }
      }
    }

    private void trailers(Headers t) {
      try {
        listener.onTrailers(t);
      } catch (RuntimeException ignored) {
        // A listener must not break the call.
      }
    }

    @Override
    public void onError(Throwable t) {
      if (done) {
        Operators.onErrorDropped(t, actual.currentContext());
        return;
      }
      done = true;
      ResponseMetadataCodec.Decoded d = RpcErrors.responseMetadata(t);
      if (d != null) {
        if (d.headers() != null) {
          headers(d.headers());
        }
        if (d.trailers() != null) {
          trailers = d.trailers();
        }
      }
      trailers(trailers == null ? Headers.EMPTY : trailers);
      actual.onError(t);
    }

    @Override
    public void onComplete() {
      if (!done) {
        done = true;
        trailers(trailers == null ? Headers.EMPTY : trailers);
        actual.onComplete();
      }
    }

    @Override
    public void request(long n) {
      if (reserve && n > 0) {
        synchronized (this) {
          if (reserve) {
            reserve = false;
            n = n == Long.MAX_VALUE ? n : (n + 1 < 0 ? Long.MAX_VALUE : n + 1);
          }
        }
      }
      upstream.request(n);
    }

    @Override
    public void cancel() {
      upstream.cancel();
    }
  }
}
