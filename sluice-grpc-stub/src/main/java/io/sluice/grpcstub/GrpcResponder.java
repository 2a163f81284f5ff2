package io.sluice.grpcstub;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;

/**
 * Handles a peer's requests in grpc-java's service style ({@code *ImplBase} methods): responses go
 * to a {@code responseObserver}, which is a {@link io.grpc.stub.ServerCallStreamObserver} with
 * {@code isReady()}/{@code setOnReadyHandler} following the requester's demand, {@code
 * isCancelled()}/{@code setOnCancelHandler} for its cancel, and, for channels, {@code
 * disableAutoRequest()} + {@code request(n)} for inbound flow control (each a REQUEST_N; call
 * {@code disableAutoRequest()} before the method returns). Methods run on the connection's event
 * loop: do not block in them.
 *
 * <p><b>Ownership.</b> Each request message belongs to the handler, which releases it; messages
 * given to a response observer are released by Sluice.
 */
public interface GrpcResponder {

  default void fireAndForget(Message request) {
    request.release();
  }

  /** A unary call: answer with one {@code onNext} and {@code onCompleted}, or {@code onError}. */
  default void requestResponse(Message request, StreamObserver<Message> responseObserver) {
    request.release();
    responseObserver.onError(Status.UNIMPLEMENTED.withDescription("requestResponse").asRuntimeException());
  }

  /** A server-streaming call. */
  default void requestStream(Message request, StreamObserver<Message> responseObserver) {
    request.release();
    responseObserver.onError(Status.UNIMPLEMENTED.withDescription("requestStream").asRuntimeException());
  }

  /**
   * A bidirectional call: return the observer that receives the requester's messages (the first
   * one included, right after this method returns).
   */
  default StreamObserver<Message> requestChannel(StreamObserver<Message> responseObserver) {
    responseObserver.onError(Status.UNIMPLEMENTED.withDescription("requestChannel").asRuntimeException());
    return new StreamObserver<Message>() {
      @Override
      public void onNext(Message value) {
        value.release();
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    };
  }

  default void metadataPush(Message metadata) {
    metadata.release();
  }
}
