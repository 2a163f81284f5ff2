package io.sluice.transport.grpc.internal;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.http2.internal.H2Answers;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.ServerStreams;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts the gRPC calls of a server's HTTP/2 connections: checks each request's headers and hands
 * it to a {@link GrpcServerCall} of the method its {@code :path} names. Answers what it cannot
 * serve at once: 415 (a content type other than gRPC with protobuf), 405 (not POST), and
 * trailers-only statuses: UNIMPLEMENTED for an unknown service, method or {@code grpc-encoding}
 * (with {@code grpc-accept-encoding}), INTERNAL for a malformed {@code grpc-timeout},
 * RESOURCE_EXHAUSTED for too much metadata, DEADLINE_EXCEEDED for a zero timeout.
 *
 * <p>A {@link H2Handler.Router} for a server of gRPC alone, and a {@link ServerStreams.Route} for
 * one that also serves other protocols on its connections. Immutable: one per bound server, shared
 * by its connections; each call runs on its connection's event loop.
 */
public final class GrpcRoute implements H2Handler.Router, ServerStreams.Route {
  private final ServiceRegistry registry;
  private final int maxInboundMessageSize;
  private final boolean gzipResponses;
  private final RpcInstrumentation instrumentation;
  /**
   * Every method served, by its {@code :path} ({@code /service/method}): a request whose path
   * netty's HPACK decoder handed over as an AsciiString finds its method with one lookup, without
   * cutting the path into strings. Immutable after construction (read by every connection's loop).
   */
  private final Map<AsciiString, Target> byPath;

  /** A method served and the names its path holds. */
  private record Target(String service, String method, ServerMethodDefinition<?, ?> def) {}

  public GrpcRoute(GrpcServices services) {
    this.registry = services.registry();
    this.maxInboundMessageSize = services.maxInboundMessageSize();
    this.gzipResponses = services.gzipResponses();
    this.instrumentation = services.instrumentation();
    Map<AsciiString, Target> paths = new HashMap<>();
    for (ServiceDefinition s : registry.services()) {
      for (ServerMethodDefinition<?, ?> def : s.methods()) {
        String method = def.method().method();
        if (registry.lookup(s.name(), method) == def) {
          paths.put(new AsciiString("/" + s.name() + "/" + method), new Target(s.name(), method, def));
        }
      }
    }
    this.byPath = Map.copyOf(paths);
  }

  @Override
  public boolean claims(Http2Headers headers) {
    return GrpcWire.isGrpc(headers.get(HttpHeaderNames.CONTENT_TYPE));
  }

  @Override
  public H2Handler.StreamSink route(H2Handler handler, Http2Stream stream, Http2Headers headers, boolean endStream) {
    // Every header the call needs, and its metadata, in one pass over the headers.
    GrpcMetadata.RequestHead head = GrpcMetadata.readRequest(headers);
    if (head.method == null || head.path == null || head.scheme == null) {
      // RFC 9113 8.3.1: malformed, a stream error of type PROTOCOL_ERROR.
      handler.encoder().writeRstStream(handler.ctx(), stream.id(), Http2Error.PROTOCOL_ERROR.code(), handler.newPromise());
      handler.flushNow();
      return null;
    }
    if (!GrpcWire.isProto(head.contentType)) {
      H2Answers.respondAndEnd(handler, stream, 415, "content-type must be application/grpc or application/grpc+proto");
      return null;
    }
    if (!HttpMethod.POST.asciiName().contentEquals(head.method)) {
      H2Answers.respondAndEnd(handler, stream, 405, "gRPC requests use POST");
      return null;
    }
    long startNanos = CallObservation.startNanos(instrumentation);
    CharSequence rawPath = head.path;
    Target target = rawPath instanceof AsciiString a ? byPath.get(a) : null;
    String service;
    String method;
    ServerMethodDefinition<?, ?> def;
    if (target != null) {
      service = target.service();
      method = target.method();
      def = target.def();
    } else {
      String path = rawPath.toString();
      int slash = path.lastIndexOf('/');
      if (!path.startsWith("/") || slash <= 1 || slash == path.length() - 1) {
        GrpcResponses.trailersOnly(
            handler, stream, Status.of(Status.Code.UNIMPLEMENTED, "malformed method name " + path), null, endStream);
        return null;
      }
      service = path.substring(1, slash);
      method = path.substring(slash + 1);
      def = registry.lookup(service, method);
    }
    Headers metadata;
    CallMetadata md;
    long timeoutNanos = -1;
    try {
      if (head.tooMany) {
        throw GrpcMetadata.tooMany();
      }
      metadata = head.metadata;
      CharSequence timeout = head.timeout;
      if (timeout != null) {
        timeoutNanos = GrpcTimeout.parseNanos(timeout);
        if (timeoutNanos < 0) {
          throw new StatusException(Status.of(Status.Code.INTERNAL, "malformed grpc-timeout '" + timeout + "'"));
        }
      }
      md = callMetadata(service, method, metadata, timeoutNanos, def);
    } catch (StatusException e) {
      GrpcResponses.trailersOnly(handler, stream, e.status(), null, endStream);
      return null;
    }
    RpcInstrumentation.CallObserver observer =
        md == null ? RpcInstrumentation.CallObserver.NONE
            : CallObservation.start(instrumentation, md, def == null ? null : def.method());
    Status refusal = null;
    GrpcEncoding encoding = GrpcEncoding.of(head.encoding);
    if (def == null) {
      refusal =
          registry.service(service) == null
              ? Status.of(Status.Code.UNIMPLEMENTED, "unknown service " + service)
              : Status.of(Status.Code.UNIMPLEMENTED, "unknown method " + method + " of service " + service);
    } else if (def.method().kind() == MethodKind.FIRE_AND_FORGET) {
      refusal = Status.of(Status.Code.UNIMPLEMENTED, def.method().fullName() + " is fire-and-forget, which gRPC does not call");
    } else if (encoding == null) {
      refusal =
          Status.of(
              Status.Code.UNIMPLEMENTED,
              "grpc-encoding '" + head.encoding + "' is not supported; use one of identity, " + GrpcEncoding.ACCEPT);
    } else if (timeoutNanos == 0) {
      refusal = Status.of(Status.Code.DEADLINE_EXCEEDED, "deadline already passed on arrival");
    }
    if (refusal != null) {
      // The response headers carry grpc-accept-encoding: what an unknown encoding's caller needs.
      GrpcResponses.trailersOnly(handler, stream, refusal, null, endStream);
      CallObservation.end(observer, refusal, startNanos);
      return null;
    }
    GrpcEncoding responseEncoding =
        gzipResponses && GrpcEncoding.GZIP.acceptedBy(head.acceptEncoding)
            ? GrpcEncoding.GZIP
            : GrpcEncoding.IDENTITY;
    MessageDeframer deframer =
        new MessageDeframer(
            handler.ctx().alloc(), maxInboundMessageSize, encoding, handler.readBudget(maxInboundMessageSize));
    return new GrpcServerCall<>(
        handler, stream, def, md, timeoutNanos, deframer, responseEncoding, observer, startNanos);
  }

  /** The call's metadata; null when the names are not valid Sluice names (no such method then). */
  private static CallMetadata callMetadata(
      String service, String method, Headers metadata, long timeoutNanos, ServerMethodDefinition<?, ?> def) {
    long millis = CallMetadata.NO_TIMEOUT;
    if (timeoutNanos >= 0) {
      long ms = TimeUnit.NANOSECONDS.toMillis(Math.min(timeoutNanos, Long.MAX_VALUE - 999_999) + 999_999);
      // Longer than the call model carries (about 49 days): the server still enforces it.
      millis = ms > CallMetadata.MAX_TIMEOUT_MILLIS ? CallMetadata.NO_TIMEOUT : ms;
    }
    try {
      return CallMetadata.of(
          service, method, metadata, millis, def != null && def.method().idempotent(), 0);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
