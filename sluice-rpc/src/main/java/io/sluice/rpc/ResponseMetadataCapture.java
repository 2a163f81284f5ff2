package io.sluice.rpc;

/**
 * A {@link ResponseMetadataListener} that keeps what it receives, like grpc-java's metadata capture:
 * pass it with {@link CallOptions#withResponseMetadata} and read {@link #headers()} and {@link
 * #trailers()} once the call has ended. One capture per call: a later call overwrites the values.
 *
 * <pre>{@code
 * ResponseMetadataCapture capture = new ResponseMetadataCapture();
 * Reply r = client.withOptions(CallOptions.DEFAULT.withResponseMetadata(capture)).get(request);
 * byte[] details = capture.trailers().getBinary("grpc-status-details-bin");
 * }</pre>
 *
 * <p>Thread-safe: written on the connection's event loop, read from any thread (the values are
 * visible once the caller has seen the call end). Holds no buffers.
 */
public final class ResponseMetadataCapture implements ResponseMetadataListener {
  private volatile Headers headers;
  private volatile Headers trailers;

  @Override
  public void onHeaders(Headers headers) {
    this.headers = headers;
  }

  @Override
  public void onTrailers(Headers trailers) {
    this.trailers = trailers;
  }

  /** The response headers, or null before they arrived (or when the call ended without them). */
  public Headers headers() {
    return headers;
  }

  /** The trailers, or null before the call ended. */
  public Headers trailers() {
    return trailers;
  }
}
