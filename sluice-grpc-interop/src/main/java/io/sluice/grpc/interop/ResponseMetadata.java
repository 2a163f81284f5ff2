package io.sluice.grpc.interop;

import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;

/**
 * How {@link MetadataEcho} hands response headers and trailers to a call: {@link #CALL_MODEL}
 * through {@link ServerCall#sendHeaders} and {@link ServerCall#close(Status, Headers)}, which a
 * gRPC transport puts on the wire and the RSocket binding drops (RSocket has no response headers
 * or trailers); tests plug in a recording one.
 *
 * <p>Implementations are called from the call's thread (its event loop or the timer that writes
 * its responses) and must not block. Hold no buffers.
 */
public interface ResponseMetadata {
  /** Sends {@code headers} as the call's response headers, before its first response. */
  void sendHeaders(ServerCall<?, ?> call, Headers headers);

  /** Ends {@code call} with {@code status} and {@code trailers}. */
  void close(ServerCall<?, ?> call, Status status, Headers trailers);

  /** Through the call model: what the transport carries of headers and trailers, it sends. */
  ResponseMetadata CALL_MODEL =
      new ResponseMetadata() {
        @Override
        public void sendHeaders(ServerCall<?, ?> call, Headers headers) {
          call.sendHeaders(headers);
        }

        @Override
        public void close(ServerCall<?, ?> call, Status status, Headers trailers) {
          call.close(status, trailers);
        }
      };
}
