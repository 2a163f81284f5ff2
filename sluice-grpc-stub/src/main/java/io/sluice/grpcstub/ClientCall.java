package io.sluice.grpcstub;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.flavor.RequesterPublisher;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client call: the {@link ClientCallStreamObserver} the application sees (the request side of
 * a channel, or the handle passed to {@link ClientResponseObserver#beforeStart}) and the core's
 * {@link StreamListener} (its {@link #listener}, a separate object only because the two interfaces
 * share method names with different meanings).
 *
 * <p><b>Inbound flow control.</b> By default (gRPC's automatic flow control) the peer is granted
 * {@link GrpcRequester#WINDOW} messages, then a window sized to keep about 1 MiB in flight, topped
 * up as messages are delivered (see {@link InboundWindow}). After {@code
 * disableAutoRequestWithInitial(n)} (or {@code disableAutoInboundFlowControl()}, which is n = 1) in
 * {@code beforeStart}, each {@code request(n)} becomes a REQUEST_N; a request-stream whose initial
 * n is 0 is sent with the first {@code request(n)}. A channel always asks for at least one message
 * in its REQUEST_CHANNEL frame (RSocket has no zero initial demand there).
 *
 * <p><b>Outbound.</b> See {@link Outbound}: {@code isReady()} reflects the responder's demand.
 */
final class ClientCall extends ClientCallStreamObserver<Message> {
  enum Kind {
    RESPONSE,
    STREAM,
    CHANNEL
  }

  private final Requester requester;
  private final Kind kind;
  private final StreamObserver<Message> responses;
  private final Outbound outbound; // channels only
  private Message request; // RESPONSE/STREAM before start; guarded by this
  private boolean auto = true; // set in beforeStart only
  private int initial = GrpcRequester.WINDOW; // InboundWindow's initial credit in auto mode
  private boolean inBeforeStart;
  private volatile StreamHandle handle;
  /**
   * Credit the automatic window topped up before the start call returned the handle: asked for by
   * whichever of the loop and the starting thread sees both (see {@link #grantDeferred}).
   */
  private final AtomicLong deferredGrant = new AtomicLong();
  private boolean started; // guarded by this
  private boolean done; // event loop: the response observer saw a terminal signal
  private volatile boolean cancelled;
  private final InboundWindow window; // streams and channels; event loop (auto mode)

  ClientCall(Requester requester, Kind kind, Message request, StreamObserver<Message> responses) {
    this.requester = requester;
    this.kind = kind;
    this.request = request;
    this.responses = responses;
    this.outbound = kind == Kind.CHANNEL ? new Outbound() : null;
    this.window = kind == Kind.RESPONSE ? null : new InboundWindow();
  }

  /** Lets a {@link ClientResponseObserver} configure the call, then starts it (not channels). */
  @SuppressWarnings("unchecked")
  void begin() {
    if (responses instanceof ClientResponseObserver) {
      inBeforeStart = true;
      try {
        ((ClientResponseObserver<Message, Message>) responses).beforeStart(this);
      } finally {
        inBeforeStart = false;
      }
    }
    if (kind != Kind.CHANNEL && !cancelled && (kind == Kind.RESPONSE || initial > 0)) {
      startSingleRequest(initial);
    }
  }

  private void startSingleRequest(long n) {
    Message m;
    synchronized (this) {
      if (started || request == null) {
        return;
      }
      started = true;
      m = request;
      request = null;
    }
    if (!requester.isOpen()) {
      m.release();
      failResponses(RequesterPublisher.notOpen(requester));
      return;
    }
    StreamHandle h =
        kind == Kind.RESPONSE
            ? requester.requestResponse(m, listener)
            : requester.requestStream(m, n, listener);
    handle = h;
    grantDeferred(h);
    if (cancelled) {
      h.cancel();
    }
  }

  /**
   * Asks for the credit topped up while the handle was not known. Both sides call it: the loop
   * after adding to {@link #deferredGrant} (then reading {@link #handle}), the starting thread
   * after setting the handle (then reading the count); one of them sees the other's write, and the
   * exchange asks for it once. The grant used to wait for the next top-up, which never came when
   * the peer had spent its credit: the stream stalled (GrpcStubFlowTest, under load).
   */
  private void grantDeferred(StreamHandle h) {
    if (deferredGrant.get() > 0) {
      long n = deferredGrant.getAndSet(0);
      if (n > 0) {
        h.request(n);
      }
    }
  }

  // ---- the request side (StreamObserver<Message>): channels only ----

  @Override
  public void onNext(Message value) {
    if (kind != Kind.CHANNEL) {
      value.release();
      throw new IllegalStateException("only a channel's request observer sends messages");
    }
    boolean first;
    synchronized (this) {
      first = !started;
      started = true;
    }
    if (cancelled) {
      value.release();
      return;
    }
    if (first) {
      if (!requester.isOpen()) {
        value.release();
        failResponses(RequesterPublisher.notOpen(requester));
        return;
      }
      StreamHandle h = requester.requestChannel(value, false, Math.max(1, initial), listener);
      handle = h;
      grantDeferred(h);
      outbound.handle(h);
      if (cancelled) {
        h.cancel();
      }
      return;
    }
    outbound.next(value);
  }

  @Override
  public void onCompleted() {
    if (kind != Kind.CHANNEL) {
      return;
    }
    boolean empty;
    synchronized (this) {
      empty = !started;
      started = true;
    }
    if (empty) {
      // Nothing sent: a channel needs a first message, so the call ends here, empty.
      completeResponses();
      return;
    }
    outbound.complete();
  }

  @Override
  public void onError(Throwable t) {
    if (kind == Kind.CHANNEL && this.handle != null) {
      // gRPC: an error on the request side cancels the call.
      outbound.error(t);
    }
    cancel("the client failed the request stream", t);
  }

  private void completeResponses() {
    Runnable r =
        () -> {
          if (!done) {
            done = true;
            responses.onCompleted();
          }
        };
    r.run();
  }

  // ---- ClientCallStreamObserver ----

  @Override
  public void cancel(String message, Throwable cause) {
    if (cancelled) {
      return;
    }
    cancelled = true;
    Message m;
    synchronized (this) {
      m = request;
      request = null;
    }
    if (m != null) {
      m.release();
    }
    if (outbound != null) {
      outbound.close();
    }
    StreamHandle h = handle;
    if (h != null) {
      h.cancel();
      h.executor().execute(() -> failResponses(cancelledStatus(message, cause)));
    } else {
      failResponses(cancelledStatus(message, cause));
    }
  }

  private static Throwable cancelledStatus(String message, Throwable cause) {
    return Status.CANCELLED.withDescription(message).withCause(cause).asRuntimeException();
  }

  private void failResponses(Throwable t) {
    if (!done) {
      done = true;
      responses.onError(t);
    }
  }

  @Override
  public boolean isReady() {
    if (kind != Kind.CHANNEL || cancelled) {
      return false;
    }
    if (handle == null) { // once set, the channel has started: no lock on the hot path
      synchronized (this) {
        if (!started) {
          return true; // the first message rides in REQUEST_CHANNEL
        }
      }
    }
    return outbound.isReady();
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {
    if (outbound != null) {
      outbound.onReadyHandler(onReadyHandler); // the requests of other calls are never "ready"
    }
  }

  @Override
  public void disableAutoInboundFlowControl() {
    disableAutoRequestWithInitial(1);
  }

  @Override
  public void disableAutoRequestWithInitial(int request) {
    if (!inBeforeStart && kind != Kind.CHANNEL) {
      throw new IllegalStateException("disable automatic flow control in beforeStart()");
    }
    if (request < 0) {
      throw new IllegalArgumentException("initial request must be >= 0: " + request);
    }
    auto = false;
    initial = request;
  }

  @Override
  public void request(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("request(n) needs n > 0: " + count);
    }
    StreamHandle h = handle;
    if (h != null) {
      h.request(count);
      return;
    }
    if (kind == Kind.STREAM && !inBeforeStart) {
      startSingleRequest(count); // a stream deferred by an initial request of 0
    } else if (kind == Kind.STREAM || kind == Kind.CHANNEL) {
      synchronized (this) {
        long sum = (long) initial + count;
        initial = (int) Math.min(Integer.MAX_VALUE, sum);
      }
    }
  }

  @Override
  public void setMessageCompression(boolean enable) {}

  // ---- StreamListener (event loop) ----

  final StreamListener listener =
      new StreamListener() {
        @Override
        public void onNext(Message m) {
          if (done || cancelled) {
            m.release();
            return;
          }
          InboundWindow w = window; // null for request-response
          if (w == null || !auto) {
            responses.onNext(m);
            return;
          }
          int size = m.size(); // read before the observer releases it
          responses.onNext(m);
          long n = w.delivered(size);
          if (n > 0) {
            topUp(w, n);
          }
        }

        private void topUp(InboundWindow w, long n) {
          StreamHandle h = handle; // null only until the start call returns: top up then
          if (h != null) {
            h.request(n);
          } else {
            deferredGrant.addAndGet(n);
            h = handle;
            if (h != null) {
              grantDeferred(h);
            }
          }
        }

        @Override
        public void onComplete() {
          if (!done && !cancelled) {
            done = true;
            responses.onCompleted();
          }
        }

        @Override
        public void onError(Throwable cause) {
          if (outbound != null) {
            outbound.close();
          }
          if (!cancelled) {
            failResponses(GrpcErrors.toStatus(cause));
          }
        }

        @Override
        public void onRequest(long n) {
          if (outbound != null) {
            outbound.onRequest(n);
          }
        }

        @Override
        public void onCancel() {
          if (outbound != null) {
            outbound.close(); // the responder stopped our half; later onNext calls are released
          }
        }
      };
}
