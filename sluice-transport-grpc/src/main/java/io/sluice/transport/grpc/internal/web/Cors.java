package io.sluice.transport.grpc.internal.web;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.HashSet;
import java.util.Map;
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
  /**
   * What browsers may read of every response: the gRPC status, whatever the call's result. The
   * names of the response metadata a handler sets are added to it, response by response.
   */
  static final String EXPOSE = "grpc-status,grpc-message,grpc-status-details-bin";

  private static final Set<String> ALWAYS_EXPOSED = Set.of(EXPOSE.split(","));
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

  /** {@link #EXPOSE} and the names of {@code response}'s other headers (metadata), once each. */
  private static CharSequence exposed(Http2Headers response) {
    StringBuilder b = null;
    Set<String> seen = null;
    for (Map.Entry<CharSequence, CharSequence> e : response) {
      String name = e.getKey().toString();
      if (name.isEmpty() || name.charAt(0) == ':' || name.equals("content-type") || name.startsWith("access-control-")
          || name.equals("vary") || ALWAYS_EXPOSED.contains(name)) {
        continue;
      }
      if (b == null) {
        b = new StringBuilder(EXPOSE);
        seen = new HashSet<>();
      }
      if (seen.add(name)) {
        b.append(',').append(name);
      }
    }
    return b == null ? EXPOSE : b;
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

  /**
   * Adds the CORS headers of an actual response to a request from {@code origin}; call it once
   * the response's other headers are set: their names are exposed (a browser lets a page read only
   * the headers a response exposes, besides a few standard ones).
   */
  void addTo(Http2Headers response, CharSequence origin) {
    response.set("access-control-expose-headers", exposed(response));
    if (allows(origin)) {
      response.set("access-control-allow-origin", origin);
      response.set("vary", "Origin");
    }
  }
}
