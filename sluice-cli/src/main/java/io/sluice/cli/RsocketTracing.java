package io.sluice.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
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
import io.sluice.ForwardingRequester;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.metadata.CompositeMetadata;
import io.sluice.metadata.MalformedMetadataException;
import io.sluice.reactor.ReactorResponder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Traces of {@code ./sluice server} and {@code ./sluice client}, the raw RSocket echo commands, from
 * the same OpenTelemetry environment variables as the RPC commands ({@link CliTracing}): a span per
 * request on each side (fire-and-forget, request-response, request-stream, request-channel; kind
 * CLIENT on the requester, SERVER on the responder), the server's a child of the client's.
 *
 * <p>The context travels in the request's RSocket metadata, as composite metadata ({@code
 * message/x.rsocket.composite-metadata.v0} layout) with one entry per field the propagators write,
 * the field's name as the entry's mime type and its value as UTF-8 content (W3C {@code
 * traceparent} and {@code tracestate} with the SDK's defaults). Only a request without metadata of
 * its own carries it (metadata the application chose is sent as it is, so an echo of it is
 * unchanged); the responder takes the context from metadata made only of such entries and hands
 * the request on without it. Entries its propagators do not read (a client injecting with other
 * propagators) are not its own: it cannot tell them from the application's and leaves the metadata
 * as it came, as grpc-java's and {@code SluiceTracing}'s server side leave the headers. A peer that
 * does not trace sees metadata it may ignore.
 * Metadata-push is no request and has no span.
 */
final class RsocketTracing {
  static final AttributeKey<String> INTERACTION = AttributeKey.stringKey("rsocket.interaction");

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  RsocketTracing(OpenTelemetry otel) {
    this.tracer = otel.getTracer("io.sluice.cli");
    this.propagator = otel.getPropagators().getTextMapPropagator();
  }

  /**
   * {@code responder} with its requests traced when the environment asks for traces; {@code
   * connection} is the requester of the connection it serves (its close ends spans still open).
   */
  static ReactorResponder serve(ReactorResponder responder, Requester connection) {
    OpenTelemetry otel = CliTracing.openTelemetry();
    return otel == null
        ? responder
        : new RsocketTracing(otel).responder(responder, connection.onClose());
  }

  /** {@code requester} with its requests traced when the environment asks for traces. */
  static Requester call(Requester requester) {
    OpenTelemetry otel = CliTracing.openTelemetry();
    return otel == null ? requester : new RsocketTracing(otel).requester(requester);
  }

  // ---- requester side

  Requester requester(Requester delegate) {
    return new TracedRequester(delegate);
  }

  private Span clientSpan(String interaction) {
    return tracer.spanBuilder(interaction)
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(INTERACTION, interaction)
        .startSpan();
  }

  /** {@code request} with the span's context as its metadata, when it has none of its own. */
  private Message inject(Message request, Span span, ByteBufAllocator alloc) {
    if (request.hasMetadata()) {
      return request;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    propagator.inject(Context.current().with(span), fields, Map::put);
    if (fields.isEmpty()) {
      return request;
    }
    ByteBuf md = alloc.buffer();
    try {
      for (Map.Entry<String, String> f : fields.entrySet()) {
        ByteBuf value = ByteBufUtil.writeUtf8(alloc, f.getValue());
        try {
          CompositeMetadata.encodeEntry(md, f.getKey(), value);
        } finally {
          value.release();
        }
      }
    } catch (RuntimeException e) {
      md.release();
      return request; // a field this layout cannot carry: the request goes untraced downstream
    }
    return Message.of(md, request.data());
  }

  /** Spans around the four interactions; metadata push and the rest pass through unchanged. */
  private final class TracedRequester extends ForwardingRequester {
    TracedRequester(Requester delegate) {
      super(delegate);
    }

    @Override
    public void fireAndForget(Message request, StreamListener listener) {
      Span span = clientSpan("fire-and-forget");
      delegate().fireAndForget(inject(request, span, delegate().alloc()), new Ending(span, listener));
    }

    @Override
    public StreamHandle requestResponse(Message request, StreamListener listener) {
      Span span = clientSpan("request-response");
      Ending ending = new Ending(span, listener);
      return ending.handle(delegate().requestResponse(inject(request, span, delegate().alloc()), ending));
    }

    @Override
    public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
      Span span = clientSpan("request-stream");
      Ending ending = new Ending(span, listener);
      return ending.handle(
          delegate().requestStream(inject(request, span, delegate().alloc()), initialRequest, ending));
    }

    @Override
    public StreamHandle requestChannel(
        Message first, boolean complete, long initialRequest, StreamListener listener) {
      Span span = clientSpan("request-channel");
      Ending ending = new Ending(span, listener);
      return ending.handle(delegate().requestChannel(
          inject(first, span, delegate().alloc()), complete, initialRequest, ending));
    }
  }

  /**
   * A request's listener that ends its span at the stream's end: completion, error, or a cancel
   * from either side (once, whichever comes first and on whichever thread).
   */
  private static final class Ending implements StreamListener {
    private final Span span;
    private final StreamListener listener;
    private final AtomicBoolean ended = new AtomicBoolean();

    Ending(Span span, StreamListener listener) {
      this.span = span;
      this.listener = listener;
    }

    void end(Throwable error) {
      if (ended.compareAndSet(false, true)) {
        if (error != null) {
          span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
          span.recordException(error);
        }
        span.end();
      }
    }

    /** The stream's handle, ending the span when the requester cancels. */
    StreamHandle handle(StreamHandle h) {
      return new StreamHandle() {
        @Override
        public void request(long n) {
          h.request(n);
        }

        @Override
        public void cancel() {
          span.setAttribute("rsocket.canceled", true);
          end(null);
          h.cancel();
        }

        @Override
        public void next(Message message) {
          h.next(message);
        }

        @Override
        public void complete() {
          h.complete();
        }

        @Override
        public void error(Throwable cause) {
          h.error(cause);
        }

        @Override
        public Executor executor() {
          return h.executor();
        }

        @Override
        public ByteBufAllocator alloc() {
          return h.alloc();
        }
      };
    }

    @Override
    public void onNext(Message message) {
      listener.onNext(message);
    }

    @Override
    public void onComplete() {
      end(null);
      listener.onComplete();
    }

    @Override
    public void onError(Throwable cause) {
      end(cause);
      listener.onError(cause);
    }

    @Override
    public void onRequest(long n) {
      listener.onRequest(n);
    }

    @Override
    public void onCancel() {
      listener.onCancel();
    }
  }

  // ---- responder side

  /**
   * {@code delegate} with its requests traced; {@code connectionClosed} completes when the
   * connection it serves closes (its requester's {@code onClose()}).
   */
  ReactorResponder responder(ReactorResponder delegate, CompletionStage<?> connectionClosed) {
    return new TracedResponder(delegate, connectionClosed);
  }

  /** A request whose span's parent came in its metadata, and the request without that metadata. */
  private record Received(Span span, Message request) {}

  private Received receive(String interaction, Message request) {
    Context parent = Context.root();
    Message handed = request;
    List<String[]> fields = traceFields(request);
    if (fields != null) {
      parent = propagator.extract(Context.root(), fields, FIELDS);
      ByteBuf md = request.metadata();
      handed = Message.of(request.data());
      md.release();
    }
    Span span = tracer.spanBuilder(interaction)
        .setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute(INTERACTION, interaction)
        .startSpan();
    return new Received(span, handed);
  }

  /**
   * The (name, value) entries of {@code request}'s metadata when it is composite metadata made only
   * of fields the propagators read; null otherwise (no metadata, or the application's own).
   */
  private List<String[]> traceFields(Message request) {
    if (!request.hasMetadata() || request.metadata().readableBytes() == 0) {
      return null;
    }
    Collection<String> known = propagator.fields();
    List<String[]> out = new ArrayList<>(2);
    try {
      CompositeMetadata.validate(request.metadata());
      CompositeMetadata.Reader r = CompositeMetadata.reader(request.metadata());
      while (r.next()) {
        if (r.isWellKnown() || !known.contains(r.mimeType())) {
          return null;
        }
        out.add(new String[] {r.mimeType(), r.content().toString(StandardCharsets.UTF_8)});
      }
    } catch (MalformedMetadataException | IndexOutOfBoundsException e) {
      return null;
    }
    return out.isEmpty() ? null : out;
  }

  private static final TextMapGetter<List<String[]>> FIELDS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(List<String[]> carrier) {
          return carrier.stream().map(f -> f[0]).toList();
        }

        @Override
        public String get(List<String[]> carrier, String key) {
          if (carrier == null) {
            return null;
          }
          for (String[] f : carrier) {
            if (f[0].equals(key)) {
              return f[1];
            }
          }
          return null;
        }
      };

  /**
   * A server span, ended once: when the response publisher ends (completion, error, cancel), when
   * the handler throws or returns no publisher, or when the connection closes while the publisher
   * was never subscribed (a response nobody asked for never ends otherwise).
   */
  private static final class ServerCall {
    private final Span span;
    private final Collection<ServerCall> open;
    private final AtomicBoolean ended = new AtomicBoolean();

    ServerCall(Span span, Collection<ServerCall> open) {
      this.span = span;
      this.open = open;
    }

    void fail(Throwable e) {
      span.setStatus(StatusCode.ERROR, String.valueOf(e.getMessage()));
      span.recordException(e);
    }

    void end() {
      if (ended.compareAndSet(false, true)) {
        open.remove(this);
        span.end();
      }
    }

    /** The connection closed with the response still open (for one never subscribed, its end). */
    void closed() {
      if (!ended.get()) {
        span.setAttribute("rsocket.connection_closed", true);
        end();
      }
    }

    /** Runs {@code handler} with the span current; ends it if the handler throws or returns null. */
    <T> T within(Supplier<T> handler) {
      T p;
      try (Scope ignored = span.makeCurrent()) {
        p = handler.get();
      } catch (RuntimeException e) {
        fail(e);
        end();
        throw e;
      }
      if (p == null) {
        fail(new NullPointerException("the responder returned a null publisher"));
        end();
      }
      return p;
    }
  }

  private final class TracedResponder implements ReactorResponder {
    private final ReactorResponder delegate;
    private final Collection<ServerCall> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    TracedResponder(ReactorResponder delegate, CompletionStage<?> connectionClosed) {
      this.delegate = delegate;
      connectionClosed.whenComplete((v, e) -> {
        closed = true;
        List.copyOf(open).forEach(ServerCall::closed);
      });
    }

    private ServerCall call(Span span) {
      ServerCall call = new ServerCall(span, open);
      open.add(call);
      if (closed) { // closed while this request was arriving: nothing would end it later
        call.closed();
      }
      return call;
    }

    @Override
    public Mono<Void> fireAndForget(Message request) {
      Received in = receive("fire-and-forget", request);
      ServerCall call = call(in.span());
      Mono<Void> p = call.within(() -> delegate.fireAndForget(in.request()));
      return p == null ? null : p.doOnError(call::fail).doFinally(s -> call.end());
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      Received in = receive("request-response", request);
      ServerCall call = call(in.span());
      Mono<Message> p = call.within(() -> delegate.requestResponse(in.request()));
      return p == null ? null : p.doOnError(call::fail).doFinally(s -> call.end());
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      Received in = receive("request-stream", request);
      ServerCall call = call(in.span());
      Flux<Message> p = call.within(() -> delegate.requestStream(in.request()));
      return p == null ? null : p.doOnError(call::fail).doFinally(s -> call.end());
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      Received in = receive("request-channel", first);
      ServerCall call = call(in.span());
      Flux<Message> p = call.within(() -> delegate.requestChannel(in.request(), rest));
      return p == null ? null : p.doOnError(call::fail).doFinally(s -> call.end());
    }

    @Override
    public Mono<Void> metadataPush(Message metadata) {
      return delegate.metadataPush(metadata);
    }
  }
}
