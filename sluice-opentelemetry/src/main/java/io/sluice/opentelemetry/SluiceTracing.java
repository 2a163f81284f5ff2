package io.sluice.opentelemetry;

import com.google.protobuf.MessageLite;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ForwardingClientCall;
import io.sluice.rpc.ForwardingClientCallListener;
import io.sluice.rpc.ForwardingServerCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * OpenTelemetry tracing for Sluice RPC, built on the public interceptor APIs: {@link
 * #serverInterceptor()} and {@link #clientInterceptor()} record one span per call on each side, and
 * carry the trace context in the call's headers with the {@link OpenTelemetry#getPropagators()
 * propagators} of the given OpenTelemetry (W3C {@code traceparent} and {@code tracestate} with the
 * SDK's default): in the RPC call metadata over RSocket, as gRPC request metadata over gRPC. Those
 * are the keys grpc-java's OpenTelemetry tracing ({@code io.grpc:grpc-opentelemetry}) writes and
 * reads with the same propagators, so a trace crosses between grpc-java and Sluice both ways.
 *
 * <pre>{@code
 * SluiceTracing tracing = SluiceTracing.create(openTelemetry);
 * ServiceRegistry registry = ServiceRegistry.builder()
 *     .add(ServerInterceptors.intercept(new ReactorGreeterServer(impl), tracing.serverInterceptor()))
 *     .build();
 * FuturesGreeterClient client =
 *     new FuturesGreeterClient(ClientInterceptors.intercept(connection, tracing.clientInterceptor()));
 * }</pre>
 *
 * <p><b>Spans</b> (OpenTelemetry's RPC semantic conventions): named {@code package.Service/Method},
 * kind {@link SpanKind#SERVER} or {@link SpanKind#CLIENT}, attributes {@code rpc.system} ({@code
 * grpc}: Sluice RPC has gRPC's service model and status codes on both wires), {@code rpc.service},
 * {@code rpc.method} and, at the end, {@code rpc.grpc.status_code}. A client span is in error for
 * any status but OK; a server span for UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL,
 * UNAVAILABLE and DATA_LOSS (the conventions' server rule: the others are the caller's doing). A
 * client span's parent is the {@link Context#current() current context} of the thread that starts
 * the call; a server span's parent is the caller's context from the headers, and the server span
 * is current while the handler is started and while its listener runs, so a call the handler makes
 * from there (with a client that has {@link #clientInterceptor()}) continues the trace.
 *
 * <p>Put the server interceptor last in {@link io.sluice.rpc.ServerInterceptors#intercept} (it then
 * sees calls first, and its span covers the other interceptors), and the client interceptor last
 * in {@link io.sluice.rpc.ClientInterceptors#intercept} likewise.
 *
 * <p>Thread-safe; one instance serves any number of servers and clients. Holds no buffers.
 */
public final class SluiceTracing {
  /** The instrumentation scope of the spans. */
  public static final String INSTRUMENTATION_SCOPE = "io.sluice.opentelemetry";

  static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  static final AttributeKey<Long> RPC_GRPC_STATUS_CODE = AttributeKey.longKey("rpc.grpc.status_code");

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final ServerInterceptor server = new TracingServerInterceptor();
  private final ClientInterceptor client = new TracingClientInterceptor();

  private SluiceTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(INSTRUMENTATION_SCOPE);
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  /** Tracing with {@code openTelemetry}'s tracer provider and propagators. */
  public static SluiceTracing create(OpenTelemetry openTelemetry) {
    return new SluiceTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"));
  }

  /** The server interceptor: a SERVER span per call, child of the caller's context. */
  public ServerInterceptor serverInterceptor() {
    return server;
  }

  /** The client interceptor: a CLIENT span per call, its context sent in the call's headers. */
  public ClientInterceptor clientInterceptor() {
    return client;
  }

  /**
   * An observer for {@link io.sluice.balancer.Balancer.Builder#attemptObserver}: each attempt of a
   * call through the balancer becomes a span ({@code Attempt}, attributes {@code
   * previous-rpc-attempts} as grpc-java's, {@code server.address}, and {@code retried} when it
   * failed and the balancer sent the call again) under the call's client span, as grpc-java's
   * attempts are. Put the balancer under {@link #clientInterceptor()}: {@code
   * ClientInterceptors.intercept(balancer, tracing.clientInterceptor())}. The trace context the
   * server receives is the call span's (the balancer resends the same request bytes), so a server
   * span is the call span's child, beside the attempt spans. Needs sluice-balancer on the classpath.
   */
  public io.sluice.balancer.AttemptObserver balancerAttempts() {
    return BalancerAttempts.observer(tracer);
  }

  private Span start(MethodDescriptor<?, ?> method, SpanKind kind, Context parent) {
    return tracer.spanBuilder(method.fullName())
        .setSpanKind(kind)
        .setParent(parent)
        .setAttribute(RPC_SYSTEM, "grpc")
        .setAttribute(RPC_SERVICE, method.service())
        .setAttribute(RPC_METHOD, method.method())
        .startSpan();
  }

  /** Ends {@code span} once with {@code status}. */
  private static final class Ending {
    private final Span span;
    private final boolean server;
    private final AtomicBoolean ended = new AtomicBoolean();

    Ending(Span span, boolean server) {
      this.span = span;
      this.server = server;
    }

    void end(Status status) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      span.setAttribute(RPC_GRPC_STATUS_CODE, (long) status.code().value());
      if (server ? serverError(status.code()) : !status.isOk()) {
        span.setStatus(StatusCode.ERROR, status.code() + (status.description().isEmpty() ? "" : ": " + status.description()));
        if (status.cause() != null) {
          span.recordException(status.cause());
        }
      }
      span.end();
    }

    private static boolean serverError(Status.Code c) {
      return switch (c) {
        case UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS -> true;
        default -> false;
      };
    }
  }

  private static final TextMapGetter<Headers> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
          List<String> keys = new ArrayList<>(carrier.size());
          for (Map.Entry<String, String> e : carrier.entries()) {
            keys.add(e.getKey());
          }
          return keys;
        }

        @Override
        public String get(Headers carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  /** {@code headers} with what the propagator injects for {@code context}, replacing those keys. */
  private Headers inject(Context context, Headers headers) {
    Map<String, String> injected = new LinkedHashMap<>(4);
    propagator.inject(context, injected, (map, key, value) -> map.put(key, value));
    if (injected.isEmpty()) {
      return headers;
    }
    Headers.Builder b = Headers.builder();
    for (Map.Entry<String, String> e : headers.entries()) {
      if (!injected.containsKey(e.getKey())) {
        b.add(e.getKey(), e.getValue());
      }
    }
    injected.forEach(b::add);
    return b.build();
  }

  private final class TracingClientInterceptor implements ClientInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      Context parent = Context.current();
      Span span = start(method, SpanKind.CLIENT, parent);
      Context context = parent.with(span);
      Ending ending = new Ending(span, false);
      ClientCall<Req, Resp> call;
      try (Scope ignored = context.makeCurrent()) {
        call = next.newCall(method, options);
      } catch (RuntimeException e) {
        ending.end(Status.fromThrowable(e));
        throw e;
      }
      return new ForwardingClientCall<>(call) {
        @Override
        public void start(ClientCall.Listener<Resp> listener, Headers headers) {
          ClientCall.Listener<Resp> ends =
              new ForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Headers trailers) {
                  ending.end(status);
                  super.onClose(status, trailers);
                }
              };
          try (Scope ignored = context.makeCurrent()) {
            super.start(ends, inject(context, headers));
          } catch (RuntimeException e) {
            ending.end(Status.fromThrowable(e));
            throw e;
          }
        }

        // The transport's stream starts here (a single request at halfClose, a stream of requests
        // at start or its first message): with the call's context current, a balancer's attempt
        // spans (balancerAttempts()) find their parent.
        @Override
        public void sendMessage(Req message) {
          try (Scope ignored = context.makeCurrent()) {
            super.sendMessage(message);
          }
        }

        @Override
        public void halfClose() {
          try (Scope ignored = context.makeCurrent()) {
            super.halfClose();
          }
        }
      };
    }

    @Override
    public String toString() {
      return "SluiceTracing.clientInterceptor()";
    }
  }

  private final class TracingServerInterceptor implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      Context parent = propagator.extract(Context.root(), call.metadata().headers(), GETTER);
      Span span = start(call.method(), SpanKind.SERVER, parent);
      Context context = parent.with(span);
      Ending ending = new Ending(span, true);
      ServerCall<Req, Resp> ends =
          new ForwardingServerCall<>(call) {
            @Override
            public void close(Status status) {
              ending.end(status);
              super.close(status);
            }

            @Override
            public void close(Status status, Headers trailers) {
              ending.end(status);
              super.close(status, trailers);
            }
          };
      ServerCall.Listener<Req> l;
      try (Scope ignored = context.makeCurrent()) {
        l = next.startCall(ends);
      } catch (RuntimeException e) {
        ending.end(Status.fromThrowable(e));
        throw e;
      }
      if (l == null) {
        ending.end(Status.of(Status.Code.INTERNAL, "the handler returned no listener"));
        return null;
      }
      return new ServerCall.Listener<Req>() {
        @Override
        public void onMessage(Req message) {
          try (Scope ignored = context.makeCurrent()) {
            l.onMessage(message);
          }
        }

        @Override
        public void onHalfClose() {
          try (Scope ignored = context.makeCurrent()) {
            l.onHalfClose();
          }
        }

        @Override
        public void onCancel() {
          try (Scope ignored = context.makeCurrent()) {
            l.onCancel();
          } finally {
            ending.end(Status.of(Status.Code.CANCELLED, "the call was cancelled"));
          }
        }

        @Override
        public void onReady(long n) {
          try (Scope ignored = context.makeCurrent()) {
            l.onReady(n);
          }
        }
      };
    }

    @Override
    public String toString() {
      return "SluiceTracing.serverInterceptor()";
    }
  }
}
