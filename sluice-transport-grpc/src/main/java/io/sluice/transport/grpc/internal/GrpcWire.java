package io.sluice.transport.grpc.internal;

import io.netty.util.AsciiString;

/**
 * Names and values of gRPC over HTTP/2 (the PROTOCOL-HTTP2 document of the gRPC project).
 *
 * <p>Constants and pure functions: safe from any thread. Holds no buffers.
 */
public final class GrpcWire {
  private GrpcWire() {}

  public static final AsciiString CONTENT_TYPE = AsciiString.cached("application/grpc");
  public static final AsciiString CONTENT_TYPE_PROTO = AsciiString.cached("application/grpc+proto");
  public static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
  public static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
  public static final AsciiString GRPC_STATUS_DETAILS = AsciiString.cached("grpc-status-details-bin");
  public static final AsciiString GRPC_TIMEOUT = AsciiString.cached("grpc-timeout");
  public static final AsciiString GRPC_ENCODING = AsciiString.cached("grpc-encoding");
  public static final AsciiString GRPC_ACCEPT_ENCODING = AsciiString.cached("grpc-accept-encoding");
  public static final AsciiString TE = AsciiString.cached("te");
  public static final AsciiString TRAILERS = AsciiString.cached("trailers");

  /**
   * True for a gRPC request's {@code content-type}: {@code application/grpc}, optionally followed
   * by {@code +} or {@code ;} and more (gRPC-Web's {@code application/grpc-web} is not).
   */
  public static boolean isGrpc(CharSequence contentType) {
    if (contentType == null || !AsciiString.regionMatches(contentType, true, 0, CONTENT_TYPE, 0, CONTENT_TYPE.length())) {
      return false;
    }
    if (contentType.length() == CONTENT_TYPE.length()) {
      return true;
    }
    char c = contentType.charAt(CONTENT_TYPE.length());
    return c == '+' || c == ';';
  }

  /**
   * True for a gRPC content type whose message format this server speaks: {@code
   * application/grpc} and {@code application/grpc+proto} (with parameters or not); a gRPC request
   * in another format ({@code +json}, ...) is answered 415.
   */
  public static boolean isProto(CharSequence contentType) {
    if (contentType != null && AsciiString.contentEquals(contentType, CONTENT_TYPE)) {
      return true; // what nearly every caller sends: no parsing
    }
    if (!isGrpc(contentType)) {
      return false;
    }
    int end = contentType.length();
    for (int i = 0; i < contentType.length(); i++) {
      if (contentType.charAt(i) == ';') {
        end = i;
        break;
      }
    }
    int n = CONTENT_TYPE.length();
    CharSequence base = contentType.subSequence(0, end).toString().trim();
    return base.length() == n
        || AsciiString.contentEqualsIgnoreCase(base, CONTENT_TYPE_PROTO);
  }
}
