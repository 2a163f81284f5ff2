package io.sluice.grpc.interop;

import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;

/**
 * How {@link MetadataEcho} hands response headers and trailers to a call. Sluice's call model has
 * neither yet: RSocket carries none, and the gRPC server transport is adding {@code
 * ServerCall.sendHeaders(Headers)} and {@code ServerCall.close(Status, Headers)} (issue 22, item 1).
 *
 * <p>TODO(issue 22, grpcserver branch): once {@code ServerCall} has those two methods, add {@code
 * CALL_MODEL = (call, h) -> call.sendHeaders(h)} / {@code call.close(status, trailers)} and make it
 * the default of {@link InteropServices}; then custom_metadata passes over the gRPC wire.
 *
 * <p>Implementations are called from the call's thread (its event loop or the timer that writes
 * its responses) and must not block. Hold no buffers.
 */
public interface ResponseMetadata {
  /** Sends {@code headers} as the call's response headers, before its first response. */
  void sendHeaders(ServerCall<?, ?> call, Headers headers);

  /** Ends {@code call} with {@code status} and {@code trailers}. */
  void close(ServerCall<?, ?> call, Status status, Headers trailers);

  /** For a call model without response metadata (RSocket): headers and trailers are dropped. */
  ResponseMetadata DROPPED =
      new ResponseMetadata() {
        @Override
        public void sendHeaders(ServerCall<?, ?> call, Headers headers) {}

        @Override
        public void close(ServerCall<?, ?> call, Status status, Headers trailers) {
          call.close(status);
        }
      };
}
