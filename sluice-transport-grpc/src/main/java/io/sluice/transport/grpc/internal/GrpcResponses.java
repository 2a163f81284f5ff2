package io.sluice.transport.grpc.internal;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.ReadOnlyHttp2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.transport.http2.internal.H2Handler;

/**
 * The HEADERS a gRPC server sends: response headers, trailers, and the trailers-only response
 * (one HEADERS frame with both, for a call that ends before its first message).
 *
 * <p>Stateless. The write methods run on the connection's event loop.
 */
public final class GrpcResponses {
  private GrpcResponses() {}

  /**
   * The response headers of nearly every call (identity encoding, no metadata of the handler's):
   * built once, read-only, shared by every call of every connection (netty's HPACK encoder only
   * reads them). Never handed to code that adds to them.
   */
  static final Http2Headers OK_HEADERS =
      ReadOnlyHttp2Headers.serverHeaders(
          false,
          HttpResponseStatus.OK.codeAsText(),
          io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE, GrpcWire.CONTENT_TYPE,
          GrpcWire.GRPC_ACCEPT_ENCODING, new AsciiString(GrpcEncoding.ACCEPT));

  /** The trailers of a call that ended OK without a message or trailers: shared and read-only as {@link #OK_HEADERS}. */
  static final Http2Headers OK_TRAILERS = ReadOnlyHttp2Headers.trailers(false, GrpcWire.GRPC_STATUS, AsciiString.of("0"));

  /**
   * {@link #headers}, or for identity and no metadata the shared {@link #OK_HEADERS}: the caller
   * writes them and adds nothing.
   */
  static Http2Headers responseHeaders(GrpcEncoding encoding, Headers metadata) {
    if (encoding == GrpcEncoding.IDENTITY && (metadata == null || metadata.isEmpty())) {
      return OK_HEADERS;
    }
    return headers(encoding, metadata);
  }

  /**
   * The trailers after a response's messages: the shared {@link #OK_TRAILERS} for an OK status
   * without a message or trailers, else new ones ({@link #addStatus}); the caller adds nothing.
   */
  static Http2Headers trailers(Status status, Headers trailers) {
    if (status.isOk() && status.description().isEmpty() && (trailers == null || trailers.isEmpty())) {
      return OK_TRAILERS;
    }
    return addStatus(new DefaultHttp2Headers(), status, trailers);
  }

  /** {@code :status 200}, the content type, the encodings, then {@code metadata}. */
  public static Http2Headers headers(GrpcEncoding encoding, Headers metadata) {
    Http2Headers h =
        new DefaultHttp2Headers()
            .status(HttpResponseStatus.OK.codeAsText())
            .set(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE, GrpcWire.CONTENT_TYPE)
            .set(GrpcWire.GRPC_ACCEPT_ENCODING, GrpcEncoding.ACCEPT);
    if (encoding != GrpcEncoding.IDENTITY) {
      h.set(GrpcWire.GRPC_ENCODING, encoding.wireName());
    }
    if (metadata != null) {
      GrpcMetadata.addTo(metadata, h);
    }
    return h;
  }

  /** Adds {@code grpc-status}, {@code grpc-message} (when there is one) and {@code trailers}. */
  public static Http2Headers addStatus(Http2Headers h, Status status, Headers trailers) {
    h.set(GrpcWire.GRPC_STATUS, Integer.toString(status.code().value()));
    if (!status.description().isEmpty()) {
      h.set(GrpcWire.GRPC_MESSAGE, StatusMessages.encode(status.description()));
    }
    if (trailers != null) {
      GrpcMetadata.addTo(trailers, h);
    }
    return h;
  }

  /**
   * Ends {@code stream} with a trailers-only response: {@code :status 200}, the content type and
   * the status in one HEADERS frame with END_STREAM; unless the caller is done sending ({@code
   * peerDone}), the rest of its request is dropped ({@link #writeLast}).
   */
  public static void trailersOnly(
      H2Handler handler, Http2Stream stream, Status status, Headers trailers, boolean peerDone) {
    writeLast(handler, stream, trailersOnlyHeaders(status, trailers), peerDone);
    handler.flushNow();
  }

  /** The one HEADERS of a trailers-only response: :status, content-type, grpc-status and the rest. */
  public static Http2Headers trailersOnlyHeaders(Status status, Headers trailers) {
    return addStatus(headers(GrpcEncoding.IDENTITY, null), status, trailers);
  }

  /**
   * Writes the stream's last HEADERS (END_STREAM). If the caller may still be sending ({@code
   * peerDone} false), what it sends until its END_STREAM is dropped ({@link
   * H2Handler#discardRequestRest}): the stream is not reset, since a reset would make its DATA
   * already on the way meet a closed stream.
   */
  public static void writeLast(H2Handler handler, Http2Stream stream, Http2Headers headers, boolean peerDone) {
    handler.encoder().writeHeaders(handler.ctx(), stream.id(), headers, 0, true, handler.newPromise());
    if (!peerDone) {
      handler.discardRequestRest(stream);
    }
  }
}
