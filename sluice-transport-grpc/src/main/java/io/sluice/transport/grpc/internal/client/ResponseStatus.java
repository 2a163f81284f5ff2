package io.sluice.transport.grpc.internal.client;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.internal.GrpcWire;
import io.sluice.transport.grpc.internal.StatusMessages;

/**
 * The {@link Status} a gRPC response ends with, as a client reads it (gRPC over HTTP/2,
 * "Responses"; gRPC's HTTP-to-gRPC status mapping): from {@code grpc-status} and the
 * percent-encoded {@code grpc-message} of the trailers (or of a trailers-only response), from the
 * HTTP {@code :status} of an answer that is not gRPC, or from the code of an RST_STREAM.
 *
 * <p>Stateless: safe from any thread. Holds no buffers.
 */
public final class ResponseStatus {
  private ResponseStatus() {}

  /**
   * Null when the response HEADERS begin a gRPC response ({@code :status} 200 and a gRPC {@code
   * content-type}), else the status the call fails with. A trailers-only response ({@code
   * endStream}) with a {@code grpc-status} is a gRPC answer whatever its content type.
   */
  public static Status checkHeaders(Http2Headers headers, boolean endStream) {
    CharSequence status = headers.status();
    if (status == null) {
      return Status.of(Status.Code.INTERNAL, "the server's response has no :status");
    }
    if (!"200".contentEquals(status)) {
      return fromHttp(status);
    }
    if (endStream && headers.contains(GrpcWire.GRPC_STATUS)) {
      return null;
    }
    CharSequence type = headers.get("content-type");
    if (!GrpcWire.isGrpc(type)) {
      return Status.of(
          Status.Code.UNKNOWN,
          "the server answered with content-type '" + type + "', not a gRPC response (application/grpc)");
    }
    return null;
  }

  /**
   * Whether response HEADERS are an interim (informational, 1xx) answer, which a client skips:
   * the real response headers follow. 101 is not one (HTTP/2 has no protocol switch: RFC 9113
   * 8.6), and interim HEADERS never end the stream (RFC 9113 8.1).
   */
  public static boolean isInterim(Http2Headers headers, boolean endStream) {
    CharSequence s = headers.status();
    return !endStream && s != null && s.length() == 3 && s.charAt(0) == '1' && !"101".contentEquals(s)
        && Character.isDigit(s.charAt(1)) && Character.isDigit(s.charAt(2));
  }

  /** The status of trailers (or of a trailers-only response). */
  public static Status fromTrailers(Http2Headers trailers) {
    CharSequence code = trailers.get(GrpcWire.GRPC_STATUS);
    if (code == null) {
      CharSequence http = trailers.status();
      if (http != null && !"200".contentEquals(http)) {
        return fromHttp(http);
      }
      return Status.of(Status.Code.INTERNAL, "the server ended the call without a grpc-status");
    }
    int value = parseCode(code);
    if (value < 0) {
      return Status.of(Status.Code.UNKNOWN, "the server sent grpc-status '" + code + "', not a status code");
    }
    String message = StatusMessages.decode(trailers.get(GrpcWire.GRPC_MESSAGE));
    if (value > 16) {
      return Status.of(Status.Code.UNKNOWN, "grpc-status " + value + (message.isEmpty() ? "" : ": " + message));
    }
    return Status.of(Status.Code.fromValue(value), message);
  }

  private static int parseCode(CharSequence s) {
    if (s.length() == 0 || s.length() > 3) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** The status of an answer with HTTP status {@code status} other than 200 (gRPC's HTTP mapping). */
  static Status fromHttp(CharSequence status) {
    Status.Code code;
    switch (status.toString()) {
      case "400":
        code = Status.Code.INTERNAL;
        break;
      case "401":
        code = Status.Code.UNAUTHENTICATED;
        break;
      case "403":
        code = Status.Code.PERMISSION_DENIED;
        break;
      case "404":
        code = Status.Code.UNIMPLEMENTED;
        break;
      case "429":
      case "502":
      case "503":
      case "504":
        code = Status.Code.UNAVAILABLE;
        break;
      default:
        code = Status.Code.UNKNOWN;
    }
    return Status.of(code, "the server answered HTTP status " + status + ", not a gRPC response");
  }

  /** The status of a call the server reset with RST_STREAM {@code errorCode} before its trailers. */
  public static Status fromReset(long errorCode) {
    Http2Error e = Http2Error.valueOf(errorCode);
    String what = "the server reset the stream (HTTP/2 " + (e != null ? e.name() : "error " + errorCode) + ")";
    if (e == null) {
      return Status.of(Status.Code.INTERNAL, what);
    }
    switch (e) {
      case CANCEL:
        return Status.of(Status.Code.CANCELLED, what);
      case REFUSED_STREAM:
        return Status.of(Status.Code.UNAVAILABLE, what + "; the call was not processed, safe to retry");
      case ENHANCE_YOUR_CALM:
        return Status.of(Status.Code.RESOURCE_EXHAUSTED, what);
      case INADEQUATE_SECURITY:
        return Status.of(Status.Code.PERMISSION_DENIED, what);
      default:
        return Status.of(Status.Code.INTERNAL, what);
    }
  }
}
