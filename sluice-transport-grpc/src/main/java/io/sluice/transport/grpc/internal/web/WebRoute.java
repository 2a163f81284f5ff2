package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.grpc.internal.GrpcEncoding;
import io.sluice.transport.grpc.internal.GrpcMetadata;
import io.sluice.transport.grpc.internal.GrpcRoute;
import io.sluice.transport.grpc.internal.GrpcTimeout;
import io.sluice.transport.grpc.internal.GrpcWire;
import io.sluice.transport.http2.internal.ReadBudget;
import io.sluice.transport.http2.HttpRoutes;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.ServerStreams;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Starts the calls of a gRPC server: gRPC requests go to {@link GrpcRoute}; gRPC-Web, HTTP/JSON
 * and CORS preflights are answered here, whether they came on an HTTP/2 stream ({@link #route})
 * or an HTTP/1.1 connection ({@link Http1Handler} calls {@link #start}).
 *
 * <p>What it answers at once: a preflight (204 with the CORS headers, or 403 when CORS is off or
 * the origin is not allowed), 415 for a content type it does not serve (or JSON for lite
 * messages), 405 for a method other than POST, and, as a status: UNIMPLEMENTED for an unknown
 * service or method and for client- and bidi-streaming methods (a browser cannot stream a
 * request; gRPC over HTTP/2 serves them), INTERNAL for a malformed {@code grpc-timeout}. Immutable:
 * one per bound server, shared by its connections.
 */
public final class WebRoute implements H2Handler.Router, ServerStreams.Route, HttpRoutes {
  private final GrpcRoute grpc;
  private final ServiceRegistry registry;
  private final int maxInboundMessageSize;
  private final RpcInstrumentation instrumentation;
  private final Cors cors;
  private final long bodyTimeoutNanos;
  private final ConsolePages console; // null: no console

  public WebRoute(GrpcServices services) {
    this.console = services.console() == null ? null : new ConsolePages(services.console(), services.registry());
    if (console != null && console.ownFigures() != null) {
      services = services.withInstrumentation(both(services.instrumentation(), console.ownFigures()));
    }
    this.grpc = new GrpcRoute(services);
    this.registry = services.registry();
    this.maxInboundMessageSize = services.maxInboundMessageSize();
    this.instrumentation = services.instrumentation();
    this.cors = new Cors(services.corsAllowedOrigins());
    this.bodyTimeoutNanos = services.requestBodyTimeout().toNanos();
  }

  /** The console counts the server's connections with {@code connections} (once, at bind). */
  @Override
  public void countConnections(IntSupplier connections) {
    if (console != null) {
      console.countConnections(connections);
    }
  }

  /** True for a request the console serves: this server has one, and the path is under it. */
  public boolean servesConsole(CharSequence path) {
    return console != null && ConsolePages.claims(path);
  }

  /**
   * Both observe every call (a throwing one does not stop the other: see CallObservation). The
   * pair wants a first response when either does, and passes it only to those that want it.
   */
  static RpcInstrumentation both(RpcInstrumentation first, RpcInstrumentation second) {
    if (first == RpcInstrumentation.NONE) {
      return second;
    }
    return (md, method) -> {
      RpcInstrumentation.CallObserver a = CallObservation.start(first, md, method);
      RpcInstrumentation.CallObserver b = CallObservation.start(second, md, method);
      return new RpcInstrumentation.CallObserver() {
        @Override
        public boolean observesFirstResponse() {
          return CallObservation.observesFirstResponse(a) || CallObservation.observesFirstResponse(b);
        }

        @Override
        public void onFirstResponse(long nanosSinceStart) {
          try {
            if (CallObservation.observesFirstResponse(a)) {
              a.onFirstResponse(nanosSinceStart);
            }
          } catch (RuntimeException ignored) {
            // Instrumentation must not break calls.
          }
          if (CallObservation.observesFirstResponse(b)) {
            b.onFirstResponse(nanosSinceStart);
          }
        }

        @Override
        public void onMessageReceived(int bytes) {
          try {
            a.onMessageReceived(bytes);
          } catch (RuntimeException ignored) {
            // Instrumentation must not break calls.
          }
          b.onMessageReceived(bytes);
        }

        @Override
        public void onMessageSent(int bytes) {
          try {
            a.onMessageSent(bytes);
          } catch (RuntimeException ignored) {
            // Instrumentation must not break calls.
          }
          b.onMessageSent(bytes);
        }

        @Override
        public void onEnd(Status status, long nanosSinceStart) {
          try {
            a.onEnd(status, nanosSinceStart);
          } catch (RuntimeException ignored) {
            // Instrumentation must not break calls.
          }
          b.onEnd(status, nanosSinceStart);
        }
      };
    };
  }

  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public ServerStreams.Route http2() {
    return this;
  }

  @Override
  public boolean servesHttp1(io.netty.handler.codec.http.HttpRequest first) {
    return Http1Handler.serves(first) || servesConsole(first.uri());
  }

  @Override
  public void takeOverHttp1(
      io.netty.channel.ChannelHandlerContext from,
      io.netty.handler.codec.http.HttpRequest first,
      java.util.function.Consumer<io.netty.channel.ChannelHandlerContext> others) {
    Http1Handler.takeOver(from, this, first, others);
  }

  /** True for a request that gRPC-Web, HTTP/JSON or CORS serve (gRPC excluded). */
  static boolean claimsWeb(CharSequence method, Http2Headers headers) {
    CharSequence type = headers.get(HttpHeaderNames.CONTENT_TYPE);
    return WebKind.of(type) != null || WebKind.isGrpcWebFamily(type) || (method != null && Cors.isPreflight(method, headers));
  }

  @Override
  public boolean claims(Http2Headers headers) {
    return grpc.claims(headers) || claimsWeb(headers.method(), headers) || servesConsole(headers.path());
  }

  @Override
  public H2Handler.StreamSink route(H2Handler handler, Http2Stream stream, Http2Headers headers, boolean endStream) {
    if (!grpc.claims(headers) && servesConsole(headers.path()) && headers.method() != null) {
      console.serve(new H2Exchange(handler, stream, endStream), headers.method(), headers.path());
      return null;
    }
    if (grpc.claims(headers) || !claimsWeb(headers.method(), headers)) {
      return grpc.route(handler, stream, headers, endStream);
    }
    if (headers.method() == null || headers.path() == null || headers.scheme() == null) {
      handler.encoder().writeRstStream(handler.ctx(), stream.id(), Http2Error.PROTOCOL_ERROR.code(), handler.newPromise());
      handler.flushNow();
      return null;
    }
    H2Exchange ex = new H2Exchange(handler, stream, endStream);
    WebCall<?, ?> call = start(ex, headers.method(), headers.path(), headers);
    if (call == null) {
      return null;
    }
    ex.call(call);
    if (endStream) {
      call.onBodyEnd();
    }
    return ex;
  }

  /**
   * Starts the call a request asks for, or answers it through {@code ex} and returns null.
   *
   * @param headers the request's headers, names in lower case (pseudo-headers ignored)
   */
  WebCall<?, ?> start(WebExchange ex, CharSequence method, CharSequence path, Http2Headers headers) {
    if (servesConsole(path)) {
      console.serve(ex, method, path);
      return null;
    }
    CharSequence origin = headers.get(Cors.ORIGIN);
    if (Cors.isPreflight(method, headers)) {
      Http2Headers h = cors.preflight(headers);
      if (h == null) {
        WebResponses.plain(
            ex, 403, cors, null,
            cors.enabled() ? "origin " + origin + " is not allowed to call here" : "CORS is off: only same-origin pages may call");
      } else {
        ex.respond(204, h, Unpooled.EMPTY_BUFFER);
      }
      return null;
    }
    CharSequence type = headers.get(HttpHeaderNames.CONTENT_TYPE);
    WebKind kind = WebKind.of(type);
    if (kind == null) {
      WebResponses.plain(
          ex, 415, cors, origin,
          "content-type must be application/grpc-web(+proto), application/grpc-web-text(+proto) or application/json");
      return null;
    }
    if (!"POST".contentEquals(method)) {
      WebResponses.plain(ex, 405, cors, origin, "calls use POST");
      return null;
    }
    long startNanos = CallObservation.startNanos(instrumentation);
    String p = path.toString();
    int q = p.indexOf('?');
    if (q >= 0) {
      p = p.substring(0, q);
    }
    int slash = p.lastIndexOf('/');
    if (!p.startsWith("/") || slash <= 1 || slash == p.length() - 1) {
      WebResponses.answer(ex, kind, cors, origin, Status.of(Status.Code.UNIMPLEMENTED, "malformed method name " + p), null);
      return null;
    }
    String service = p.substring(1, slash);
    String name = p.substring(slash + 1);
    ServerMethodDefinition<?, ?> def = registry.lookup(service, name);
    CallMetadata md;
    long timeoutNanos = -1;
    try {
      Headers metadata = GrpcMetadata.toHeaders(headers);
      CharSequence timeout = headers.get(GrpcWire.GRPC_TIMEOUT);
      if (timeout != null) {
        timeoutNanos = GrpcTimeout.parseNanos(timeout);
        if (timeoutNanos < 0) {
          throw new StatusException(Status.of(Status.Code.INTERNAL, "malformed grpc-timeout '" + timeout + "'"));
        }
      }
      md = callMetadata(service, name, metadata, timeoutNanos, def);
    } catch (StatusException e) {
      WebResponses.answer(ex, kind, cors, origin, e.status(), null);
      return null;
    }
    RpcInstrumentation.CallObserver observer =
        md == null ? RpcInstrumentation.CallObserver.NONE
            : CallObservation.start(instrumentation, md, def == null ? null : def.method());
    Status refusal = null;
    JsonCodec json = null;
    if (def == null) {
      refusal =
          registry.service(service) == null
              ? Status.of(Status.Code.UNIMPLEMENTED, "unknown service " + service)
              : Status.of(Status.Code.UNIMPLEMENTED, "unknown method " + name + " of service " + service);
    } else if (def.method().kind() == MethodKind.FIRE_AND_FORGET) {
      refusal = Status.of(Status.Code.UNIMPLEMENTED, def.method().fullName() + " is fire-and-forget, which gRPC does not call");
    } else if (def.method().kind().clientStreams()) {
      refusal =
          Status.of(
              Status.Code.UNIMPLEMENTED,
              def.method().fullName() + " streams requests, which " + (kind.isGrpcWeb() ? "gRPC-Web" : "HTTP/JSON")
                  + " cannot carry (a request body holds one message); call it with gRPC over HTTP/2");
    } else if (kind.isGrpcWeb() && GrpcEncoding.of(headers.get(GrpcWire.GRPC_ENCODING)) != GrpcEncoding.IDENTITY) {
      refusal = Status.of(Status.Code.UNIMPLEMENTED, "gRPC-Web requests must be uncompressed (grpc-encoding identity)");
    } else if (timeoutNanos == 0) {
      refusal = Status.of(Status.Code.DEADLINE_EXCEEDED, "deadline already passed on arrival");
    } else if (kind == WebKind.JSON) {
      try {
        json = JsonCodec.forMethod(def.method());
      } catch (StatusException e) {
        Http2Headers h = WebResponses.headers(WebResponses.AsciiContentType.JSON, cors, origin);
        ex.respond(415, h, Unpooled.wrappedBuffer(JsonCodec.error(e.status())));
        CallObservation.end(observer, e.status(), startNanos);
        return null;
      }
    }
    if (refusal != null) {
      WebResponses.answer(ex, kind, cors, origin, refusal, null);
      CallObservation.end(observer, refusal, startNanos);
      return null;
    }
    return new WebCall<>(
        ex, kind, def, md, timeoutNanos, maxInboundMessageSize, cors, origin, json,
        ReadBudget.of(ex.channel(), maxInboundMessageSize), bodyTimeoutNanos, observer, startNanos);
  }

  /** The call's metadata; null when the names are not valid Sluice names (no such method then). */
  private static CallMetadata callMetadata(
      String service, String method, Headers metadata, long timeoutNanos, ServerMethodDefinition<?, ?> def) {
    long millis = CallMetadata.NO_TIMEOUT;
    if (timeoutNanos >= 0) {
      long ms = TimeUnit.NANOSECONDS.toMillis(Math.min(timeoutNanos, Long.MAX_VALUE - 999_999) + 999_999);
      millis = ms > CallMetadata.MAX_TIMEOUT_MILLIS ? CallMetadata.NO_TIMEOUT : ms;
    }
    try {
      return CallMetadata.of(service, method, metadata, millis, def != null && def.method().idempotent(), 0);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
