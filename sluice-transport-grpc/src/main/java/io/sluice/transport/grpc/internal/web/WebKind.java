package io.sluice.transport.grpc.internal.web;

import io.netty.util.AsciiString;
import java.util.Locale;

/**
 * What a request speaks, by its {@code content-type}: gRPC-Web in binary or base64 text, or
 * HTTP/JSON. Other types (gRPC-Web with JSON messages, say) are not served by this package.
 */
enum WebKind {
  GRPC_WEB("application/grpc-web+proto"),
  GRPC_WEB_TEXT("application/grpc-web-text+proto"),
  JSON("application/json");

  /** The content type of responses. */
  final AsciiString responseType;

  WebKind(String responseType) {
    this.responseType = AsciiString.cached(responseType);
  }

  /** The kind of {@code contentType}, or null when this package does not serve it. */
  static WebKind of(CharSequence contentType) {
    if (contentType == null) {
      return null;
    }
    String base = contentType.toString();
    int semi = base.indexOf(';');
    if (semi >= 0) {
      base = base.substring(0, semi);
    }
    base = base.trim().toLowerCase(Locale.ROOT);
    return switch (base) {
      case "application/grpc-web", "application/grpc-web+proto" -> GRPC_WEB;
      case "application/grpc-web-text", "application/grpc-web-text+proto" -> GRPC_WEB_TEXT;
      case "application/json" -> JSON;
      default -> null;
    };
  }

  /** True for any gRPC-Web content type, served or not ({@code +json} is refused with 415). */
  static boolean isGrpcWebFamily(CharSequence contentType) {
    return contentType != null
        && AsciiString.regionMatches(contentType, true, 0, "application/grpc-web", 0, "application/grpc-web".length());
  }

  boolean isGrpcWeb() {
    return this != JSON;
  }
}
