package io.sluice.transport.grpc.internal.client;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.CallMetadata;
import io.sluice.transport.grpc.internal.GrpcEncoding;
import io.sluice.transport.grpc.internal.GrpcMetadata;
import io.sluice.transport.grpc.internal.GrpcTimeout;
import io.sluice.transport.grpc.internal.GrpcWire;
import java.util.concurrent.TimeUnit;

/**
 * The HEADERS that start a gRPC call (gRPC over HTTP/2, "Requests"): {@code POST
 * /<service>/<method>}, {@code content-type: application/grpc}, {@code te: trailers}, {@code
 * grpc-timeout} when the call has a deadline, {@code grpc-accept-encoding: gzip} (responses may
 * come compressed; requests go uncompressed), a {@code user-agent} unless the call sets one, and
 * the call's headers as metadata (binary {@code -bin} values already base64, as {@link
 * io.sluice.rpc.Headers} holds them; headers the protocol reserves are left out).
 *
 * <p>Stateless: safe from any thread.
 */
public final class RequestHeaders {
  private RequestHeaders() {}

  /** What the client names itself in {@code user-agent} unless a call sets its own. */
  public static final AsciiString USER_AGENT = AsciiString.cached("sluice-grpc-java");

  private static final AsciiString POST = HttpMethod.POST.asciiName();

  public static Http2Headers of(AsciiString scheme, AsciiString authority, CallMetadata call) {
    Http2Headers h =
        new DefaultHttp2Headers(false, 8 + call.headers().size())
            .method(POST)
            .scheme(scheme)
            .path("/" + call.service() + "/" + call.method())
            .authority(authority);
    h.add(HttpHeaderNames.CONTENT_TYPE, GrpcWire.CONTENT_TYPE);
    h.add(GrpcWire.TE, GrpcWire.TRAILERS);
    if (call.hasTimeout()) {
      h.add(GrpcWire.GRPC_TIMEOUT, GrpcTimeout.format(TimeUnit.MILLISECONDS.toNanos(call.timeoutMillis())));
    }
    h.add(GrpcWire.GRPC_ACCEPT_ENCODING, GrpcEncoding.ACCEPT);
    if (call.headers().get("user-agent") == null) {
      h.add(HttpHeaderNames.USER_AGENT, USER_AGENT);
    }
    GrpcMetadata.addTo(call.headers(), h);
    return h;
  }
}
