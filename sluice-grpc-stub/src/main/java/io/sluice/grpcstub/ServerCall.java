package io.sluice.grpcstub;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;

/**
 * One call on the responder side: the {@link ServerCallStreamObserver} handed to the handler and,
 * through {@link #listener}, the core's stream listener. Outbound messages of streams and channels
 * go through {@link Outbound} (paced by the requester's demand); a unary answer is sent at once.
 *
 * <p>Inbound (channels): under automatic flow control the first message is delivered right after
 * the handler returns and the requester is granted {@link GrpcRequester#WINDOW} messages, topped up
 * as they are delivered. After {@code disableAutoRequest()}, nothing is delivered (not even the
 * first message) until {@code request(n)}.
 */
final class ServerCall extends ServerCallStreamObserver<Message> {
  enum Kind {
    RESPONSE,
    STREAM,
    CHANNEL
  }

  private final Kind kind;
  private final StreamHandle handle;
  private final Outbound outbound; // streams and channels only
  private Message single; // RESPONSE: guarded by this
  private boolean responded; // RESPONSE: guarded by this
  private volatile boolean cancelled;
  private volatile Runnable onCancel;
  private volatile Runnable onClose;
  // Channels (event loop unless noted)
  private StreamObserver<Message> requests;
  private volatile boolean auto = true;
  private Message heldFirst;
  private boolean inboundComplete;
  private boolean inboundDone;
  private final InboundWindow window; // channels only, auto mode

  ServerCall(Kind kind, StreamHandle handle) {
    this.kind = kind;
    this.handle = handle;
    this.outbound = kind == Kind.RESPONSE ? null : new Outbound();
    this.window = kind == Kind.CHANNEL ? new InboundWindow() : null;
    if (outbound != null) {
      outbound.handle(handle);
    }
    if (kind == Kind.CHANNEL) {
      // gRPC: completing the responses closes the call; the requester's half is stopped too.
      outbound.onCompleteSent(
          () -> {
            if (!inboundDone) {
              inboundDone = true;
              Message held = heldFirst;
              heldFirst = null;
              if (held != null) {
                held.release();
              }
              handle.cancel();
            }
          });
      // An error ends the stream both ways. A caller that had half-closed gets no more inbound
      // signal from the core, so a first request still held (manual flow, never asked for) is
      // released here.
      outbound.onErrorSent(
          () -> {
            Message held = heldFirst;
            heldFirst = null;
            if (held != null) {
              held.release();
            }
          });
    }
  }

  /** After a channel handler returned its request observer (event loop). */
  void channelStarted(StreamObserver<Message> requests, Message first, boolean complete) {
    if (requests == null) {
      first.release();
      handle.error(new NullPointerException("the handler returned a null request observer"));
      return;
    }
    this.requests = requests;
    this.inboundComplete = complete;
    if (auto) {
      deliver(first);
      if (complete) {
        finishInbound();
      } else {
        handle.request(window.initial());
      }
    } else {
      heldFirst = first;
    }
  }

  private void deliver(Message m) {
    if (cancelled || inboundDone) {
      m.release();
      return;
    }
    requests.onNext(m);
  }

  private void finishInbound() {
    if (!inboundDone) {
      inboundDone = true;
      requests.onCompleted();
    }
  }

  // ---- StreamObserver: the handler's answers ----

  @Override
  public void onNext(Message value) {
    if (kind != Kind.RESPONSE) {
      outbound.next(value);
      return;
    }
    synchronized (this) {
      if (single == null && !responded && !cancelled) {
        single = value;
        return;
      }
    }
    value.release();
    if (!cancelled) {
      throw new IllegalStateException("a unary call answers with one message");
    }
  }

  @Override
  public void onCompleted() {
    if (kind != Kind.RESPONSE) {
      outbound.complete();
    } else {
      Message m;
      synchronized (this) {
        if (responded) {
          return;
        }
        responded = true;
        m = single;
        single = null;
      }
      if (m == null) {
        handle.complete();
      } else {
        handle.nextAndComplete(m); // released by the core if the requester is gone
      }
    }
    Runnable r = onClose;
    if (r != null) {
      r.run();
    }
  }

  @Override
  public void onError(Throwable t) {
    if (kind != Kind.RESPONSE) {
      outbound.error(t);
      return;
    }
    Message m;
    synchronized (this) {
      if (responded) {
        return;
      }
      responded = true;
      m = single;
      single = null;
    }
    if (m != null) {
      m.release();
    }
    handle.error(t);
  }

  // ---- ServerCallStreamObserver ----

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public void setOnCancelHandler(Runnable onCancelHandler) {
    onCancel = onCancelHandler;
  }

  @Override
  public void setOnCloseHandler(Runnable onCloseHandler) {
    onClose = onCloseHandler;
  }

  @Override
  public void setCompression(String compression) {}

  @Override
  public boolean isReady() {
    return kind == Kind.RESPONSE ? !cancelled : !cancelled && outbound.isReady();
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {
    if (outbound != null) {
      outbound.onReadyHandler(onReadyHandler);
    }
  }

  @Override
  public void disableAutoInboundFlowControl() {
    auto = false;
  }

  @Override
  public void disableAutoRequest() {
    auto = false;
  }

  @Override
  public void request(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("request(n) needs n > 0: " + count);
    }
    if (kind != Kind.CHANNEL) {
      return; // no inbound messages beyond the request
    }
    handle
        .executor()
        .execute(
            () -> {
              int n = count;
              Message first = heldFirst;
              if (first != null) {
                heldFirst = null;
                deliver(first);
                n--;
                if (inboundComplete) {
                  finishInbound();
                  return;
                }
              }
              if (n > 0) {
                handle.request(n);
              }
            });
  }

  @Override
  public void setMessageCompression(boolean enable) {}

  private void cancelled(Throwable cause) {
    cancelled = true;
    if (outbound != null) {
      outbound.close();
    }
    Message m;
    synchronized (this) {
      m = single;
      single = null;
    }
    if (m != null) {
      m.release();
    }
    Message held = heldFirst;
    heldFirst = null;
    if (held != null) {
      held.release();
    }
    Runnable r = onCancel;
    if (r != null) {
      r.run();
    }
    if (requests != null && !inboundDone) {
      inboundDone = true;
      requests.onError(cause);
    }
  }

  // ---- StreamListener (event loop) ----

  final StreamListener listener =
      new StreamListener() {
        @Override
        public void onNext(Message message) {
          if (requests == null) {
            message.release();
            return;
          }
          int size = message.size(); // read before the handler releases it
          deliver(message);
          if (auto && window != null) {
            long n = window.delivered(size);
            if (n > 0) {
              handle.request(n);
            }
          }
        }

        @Override
        public void onComplete() {
          if (requests != null) {
            if (heldFirst == null) {
              finishInbound();
            } else {
              inboundComplete = true; // delivered after the held first message
            }
          }
        }

        @Override
        public void onError(Throwable cause) {
          cancelled(GrpcErrors.toStatus(cause));
        }

        @Override
        public void onRequest(long n) {
          if (outbound != null) {
            outbound.onRequest(n);
          }
        }

        @Override
        public void onCancel() {
          cancelled(Status.CANCELLED.withDescription("the requester canceled").asRuntimeException());
        }
      };
}
