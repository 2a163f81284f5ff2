package io.sluice.grpcstub;

import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamListener;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Starts interactions with the peer in grpc-java's asynchronous stub style: the four calls of
 * {@code io.grpc.stub.ClientCalls} ({@code asyncUnaryCall}, {@code asyncServerStreamingCall},
 * {@code asyncBidiStreamingCall}; client streaming is a channel too) over RSocket streams, plus
 * fire-and-forget. Thread-safe.
 *
 * <p>A {@link ClientResponseObserver} gets the call's {@link io.grpc.stub.ClientCallStreamObserver}
 * in {@code beforeStart} and may take over inbound flow control there ({@code
 * disableAutoRequestWithInitial(n)}, then {@code request(n)}, each a REQUEST_N) or cancel. On a
 * channel's request observer, {@code isReady()} and {@code setOnReadyHandler} follow the
 * responder's demand. Errors reach the response observer as {@link
 * io.grpc.StatusRuntimeException} (see {@link GrpcErrors}), cancellation as {@code CANCELLED}.
 *
 * <p><b>Threads.</b> Response observers are called on the connection's event loop: do not block
 * in them. <b>Ownership.</b> Every message passed in is owned by Sluice from then on; every message
 * given to a response observer belongs to it and must be released.
 */
public final class GrpcRequester {
  /**
   * Initial inbound credit under automatic flow control, in messages: what a stream or channel
   * asks for before any message size is known. From the first top-up on, the window is sized to
   * keep about 1 MiB in flight (as gRPC's default HTTP/2 window) by the average size of the
   * messages delivered, between 16 and 65536 messages, and topped up whenever half of it is used.
   */
  public static final int WINDOW = 256;

  private final Requester requester;

  public GrpcRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Fire-and-forget; {@code sent} (may be null) completes once the frame is handed on. */
  public void fireAndForget(Message request, StreamObserver<Void> sent) {
    Objects.requireNonNull(request, "request");
    requester.fireAndForget(
        request,
        new StreamListener() {
          @Override
          public void onNext(Message message) {
            message.release();
          }

          @Override
          public void onComplete() {
            if (sent != null) {
              sent.onCompleted();
            }
          }

          @Override
          public void onError(Throwable cause) {
            if (sent != null) {
              sent.onError(GrpcErrors.toStatus(cause));
            }
          }
        });
  }

  /** A unary call (request-response): one {@code onNext} then {@code onCompleted}, or an error. */
  public void requestResponse(Message request, StreamObserver<Message> responseObserver) {
    start(ClientCall.Kind.RESPONSE, request, responseObserver);
  }

  /** A server-streaming call (request-stream). */
  public void requestStream(Message request, StreamObserver<Message> responseObserver) {
    start(ClientCall.Kind.STREAM, request, responseObserver);
  }

  /**
   * A bidirectional (or client-streaming) call: a request-channel. The returned observer sends;
   * its first {@code onNext} starts the channel (that message rides in REQUEST_CHANNEL), {@code
   * onCompleted} ends the outbound half, {@code onError} cancels the call. It is a {@link
   * io.grpc.stub.ClientCallStreamObserver}: check {@code isReady()} (or set an on-ready handler)
   * to follow the responder's demand; messages sent while not ready wait in order.
   */
  public StreamObserver<Message> requestChannel(StreamObserver<Message> responseObserver) {
    Objects.requireNonNull(responseObserver, "responseObserver");
    ClientCall call = new ClientCall(requester, ClientCall.Kind.CHANNEL, null, responseObserver);
    call.begin();
    return call;
  }

  private void start(ClientCall.Kind kind, Message request, StreamObserver<Message> observer) {
    Objects.requireNonNull(request, "request");
    if (observer == null) {
      request.release();
      throw new NullPointerException("responseObserver");
    }
    new ClientCall(requester, kind, request, observer).begin();
  }

  public ByteBufAllocator alloc() {
    return requester.alloc();
  }

  /** See {@link Requester#availability()}: how much of the peer's lease is left, 0 to 1. */
  public double availability() {
    return requester.availability();
  }

  /** See {@link Requester#availability(int)}: as {@link #availability()} for a priority rank. */
  public double availability(int rank) {
    return requester.availability(rank);
  }

  public boolean isOpen() {
    return requester.isOpen();
  }

  /** Graceful close: CONNECTION_CLOSE, then live streams drain. */
  public void close() {
    requester.close();
  }

  /** Immediate close. */
  public void dispose() {
    requester.dispose();
  }

  public CompletableFuture<Void> onClose() {
    return requester.onClose();
  }

  public Requester unwrap() {
    return requester;
  }
}
