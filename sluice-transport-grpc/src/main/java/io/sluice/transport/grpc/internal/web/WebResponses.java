package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.internal.GrpcMetadata;
import io.sluice.transport.grpc.internal.GrpcWire;
import io.sluice.transport.grpc.internal.StatusMessages;

/**
 * The headers and the bodiless answers of gRPC-Web and HTTP/JSON. Stateless; the {@code answer}
 * methods run on the exchange's event loop.
 */
final class WebResponses {
  private WebResponses() {}

  /**
   * Response headers of {@code kind}: the content type, each of {@code metadata} (null ones
   * skipped), then CORS (exposing the metadata's names, so that pages of allowed origins read
   * them).
   */
  static Http2Headers headers(AsciiContentType type, Cors cors, CharSequence origin, Headers... metadata) {
    Http2Headers h = new DefaultHttp2Headers().set("content-type", type.value());
    for (Headers m : metadata) {
      if (m != null) {
        GrpcMetadata.addTo(m, h);
      }
    }
    cors.addTo(h, origin);
    return h;
  }

  /** The content types of responses. */
  enum AsciiContentType {
    GRPC_WEB(WebKind.GRPC_WEB.responseType),
    GRPC_WEB_TEXT(WebKind.GRPC_WEB_TEXT.responseType),
    JSON(WebKind.JSON.responseType),
    NDJSON("application/x-ndjson");

    private final CharSequence value;

    AsciiContentType(CharSequence value) {
      this.value = value;
    }

    CharSequence value() {
      return value;
    }

    static AsciiContentType of(WebKind kind) {
      return switch (kind) {
        case GRPC_WEB -> GRPC_WEB;
        case GRPC_WEB_TEXT -> GRPC_WEB_TEXT;
        case JSON -> JSON;
      };
    }
  }

  /**
   * Ends a call that sent nothing with {@code status}: for gRPC-Web a trailers-only response
   * (status 200, {@code grpc-status} and {@code grpc-message} as headers, no body); for JSON the
   * status's HTTP status and {@code {"code": N, "message": "..."}}.
   */
  static void answer(WebExchange ex, WebKind kind, Cors cors, CharSequence origin, Status status, Headers trailers) {
    Http2Headers h = headers(AsciiContentType.of(kind), cors, origin, trailers);
    if (kind.isGrpcWeb()) {
      h.set(GrpcWire.GRPC_STATUS, Integer.toString(status.code().value()));
      if (!status.description().isEmpty()) {
        h.set(GrpcWire.GRPC_MESSAGE, StatusMessages.encode(status.description()));
      }
      ex.respond(200, h, Unpooled.EMPTY_BUFFER);
    } else {
      h.set(GrpcWire.GRPC_STATUS, Integer.toString(status.code().value()));
      ex.respond(HttpStatuses.of(status.code()), h, Unpooled.wrappedBuffer(JsonCodec.error(status)));
    }
  }

  /** A plain-text answer outside gRPC (405, 413, 415, 403): {@code reason} in the body. */
  static void plain(WebExchange ex, int status, Cors cors, CharSequence origin, String reason) {
    Http2Headers h = new DefaultHttp2Headers().set("content-type", "text/plain; charset=utf-8");
    cors.addTo(h, origin);
    ex.respond(status, h, Unpooled.copiedBuffer(reason + "\n", java.nio.charset.StandardCharsets.UTF_8));
  }
}
