package io.sluice.transport.grpc.internal.web;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Set;

/**
 * The CORS policy of gRPC-Web and HTTP/JSON: the origins allowed to call from a browser page of
 * another origin. With none (the default) no CORS header is ever sent, so browsers allow only
 * same-origin pages, and preflights ({@code OPTIONS}) are answered 403; {@code "*"} allows every
 * origin. Credentials (cookies) are never allowed across origins. Immutable.
 */
final class Cors {
  static final AsciiString ORIGIN = AsciiString.cached("origin");
  static final AsciiString REQUEST_METHOD = AsciiString.cached("access-control-request-method");
  static final AsciiString REQUEST_HEADERS = AsciiString.cached("access-control-request-headers");
  /** What browsers may read of a response: the gRPC status, whatever the call's result. */
  static final String EXPOSE = "grpc-status,grpc-message,grpc-status-details-bin";
  /** Preflight results cached by browsers this long, in seconds. */
  static final String MAX_AGE = "7200";

  private final Set<String> origins;

  Cors(Set<String> origins) {
    this.origins = Set.copyOf(origins);
  }

  boolean enabled() {
    return !origins.isEmpty();
  }

  /** True when {@code origin} (an {@code Origin} header, or null) may call across origins. */
  boolean allows(CharSequence origin) {
    return origin != null && (origins.contains("*") || origins.contains(origin.toString()));
  }

  /** True for a CORS preflight: {@code OPTIONS} with {@code Access-Control-Request-Method}. */
  static boolean isPreflight(CharSequence method, Http2Headers headers) {
    return "OPTIONS".contentEquals(method) && headers.contains(REQUEST_METHOD);
  }

  /** The headers of a preflight's answer: 204 when allowed (null: answer 403). */
  Http2Headers preflight(Http2Headers request) {
    CharSequence origin = request.get(ORIGIN);
    CharSequence method = request.get(REQUEST_METHOD);
    if (!allows(origin) || method == null || !"POST".contentEquals(method)) {
      return null;
    }
    Http2Headers h = new DefaultHttp2Headers();
    h.set("access-control-allow-origin", origin);
    h.set("access-control-allow-methods", "POST");
    CharSequence asked = request.get(REQUEST_HEADERS);
    if (asked != null) {
      // The origin is trusted: it may send the headers it asks for (metadata, grpc-timeout, ...).
      h.set("access-control-allow-headers", asked);
    }
    h.set("access-control-max-age", MAX_AGE);
    h.set("vary", "Origin");
    return h;
  }

  /** Adds the CORS headers of an actual response to a request from {@code origin}. */
  void addTo(Http2Headers response, CharSequence origin) {
    response.set("access-control-expose-headers", EXPOSE);
    if (allows(origin)) {
      response.set("access-control-allow-origin", origin);
      response.set("vary", "Origin");
    }
  }
}
