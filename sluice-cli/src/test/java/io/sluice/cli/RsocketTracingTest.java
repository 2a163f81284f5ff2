package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.netty.buffer.ByteBufAllocator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.sluice.Message;
import io.sluice.metadata.CompositeMetadata;
import io.sluice.Requester;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The raw RSocket echo server and client traced in one JVM (the SDK with an exporter that keeps
 * the ended spans): every case of the echo contract still passes, each request has a client span
 * and a server span, the server's the child of its own client span, and a traced client still
 * passes against an untraced server (and the other way round).
 */
class RsocketTracingTest {
  private final List<SpanData> spans = new CopyOnWriteArrayList<>();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(new Keeping())).build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();

  /** Keeps what it is given. */
  private final class Keeping implements SpanExporter {
    @Override
    public CompletableResultCode export(Collection<SpanData> batch) {
      spans.addAll(batch);
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }

  @AfterEach
  void close() {
    sdk.close();
  }

  private String run(
      BiFunction<ReactorResponder, Requester, ReactorResponder> server,
      Function<Requester, Requester> client) {
    ServerTransport.Bound bound =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .acceptor(
                (setup, requester) ->
                    server.apply(new EchoResponder(requester.alloc()), requester.unwrap()))
            .bind()
            .block(Duration.ofSeconds(10));
    int port = ((InetSocketAddress) bound.address()).getPort();
    Requester connection =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(Duration.ofSeconds(10)).unwrap();
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int failures =
          new EchoClient(
                  TcpClientTransport.create("127.0.0.1", port),
                  ConnectionOptions.defaults(),
                  true,
                  0,
                  new PrintStream(bytes, true, StandardCharsets.UTF_8))
              .over(client.apply(connection))
              .run();
      String report = bytes.toString(StandardCharsets.UTF_8);
      assertThat(failures).as(report).isZero();
      return report;
    } finally {
      connection.dispose();
      bound.close();
    }
  }

  private List<SpanData> of(SpanKind kind, String name) {
    return spans.stream().filter(s -> s.getKind() == kind && s.getName().equals(name)).toList();
  }

  @Test
  void eachRequestIsAClientSpanWithTheServersSpanUnderIt() throws Exception {
    RsocketTracing tracing = new RsocketTracing(sdk);
    String report = run((r, c) -> tracing.responder(r, c.onClose()), tracing::requester);
    assertThat(report).contains("12 passed, 0 failed");
    // Server spans end when the response went out, client spans once the listener was told (the
    // report can come first): wait (bounded) until the two sides' counts agree.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (of(SpanKind.SERVER, "request-response").size() != of(SpanKind.CLIENT, "request-response").size()
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    for (String interaction : List.of("fire-and-forget", "request-response", "request-stream", "request-channel")) {
      List<SpanData> clients = of(SpanKind.CLIENT, interaction);
      List<SpanData> servers = of(SpanKind.SERVER, interaction);
      assertThat(clients).as(interaction).isNotEmpty();
      Set<String> clientIds = new HashSet<>();
      clients.forEach(c -> clientIds.add(c.getTraceId() + "/" + c.getSpanId()));
      // Each client span is its own trace (no parent here), and the server's spans hang under them.
      assertThat(clients).allMatch(c -> !c.getParentSpanContext().isValid());
      assertThat(servers).as(interaction).isNotEmpty();
      List<SpanData> children =
          servers.stream()
              .filter(s -> clientIds.contains(s.getTraceId() + "/" + s.getParentSpanContext().getSpanId()))
              .toList();
      if (interaction.equals("request-response")) {
        // All but one: request-response-metadata carries metadata of its own, so no context.
        assertThat(servers).hasSameSizeAs(clients);
        assertThat(children).hasSize(servers.size() - 1);
      } else {
        assertThat(children).as(interaction).hasSameSizeAs(servers);
      }
    }
    assertThat(of(SpanKind.SERVER, "request-response"))
        .filteredOn(s -> s.getStatus().getStatusCode() == io.opentelemetry.api.trace.StatusCode.ERROR)
        .hasSize(1); // request-response-error
  }

  @Test
  void aTracedClientPassesAgainstAnUntracedServerAndTheOtherWayRound() {
    RsocketTracing tracing = new RsocketTracing(sdk);
    assertThat(run((r, c) -> r, tracing::requester)).contains("12 passed, 0 failed");
    assertThat(of(SpanKind.SERVER, "request-response")).isEmpty();
    spans.clear();
    assertThat(run((r, c) -> tracing.responder(r, c.onClose()), Function.identity()))
        .contains("12 passed, 0 failed");
    assertThat(of(SpanKind.CLIENT, "request-response")).isEmpty();
    assertThat(of(SpanKind.SERVER, "request-response")).isNotEmpty().allMatch(s -> !s.getParentSpanContext().isValid());
  }

  /** Answers with the request itself, without copying; a stream's answer is null when asked "null". */
  private static final class Returning implements ReactorResponder {
    @Override
    public Mono<Message> requestResponse(Message request) {
      return Mono.just(request);
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      if (request.dataUtf8().equals("null")) {
        request.release();
        return null;
      }
      return Flux.just(request);
    }
  }

  private static Message utf8(String s) {
    return Message.utf8(ByteBufAllocator.DEFAULT, s);
  }

  @Test
  void aServerSpanEndsOnceHoweverTheCallEndsEvenWithItsResponseNeverSubscribed() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    try (OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build()) {
      CompletableFuture<Void> connectionClosed = new CompletableFuture<>();
      ReactorResponder traced = new RsocketTracing(otel).responder(new Returning(), connectionClosed);

      // Answered as usual: its span ends with the answer.
      traced.requestResponse(utf8("answered")).block(Duration.ofSeconds(10)).release();
      assertThat(exporter.getFinishedSpanItems()).hasSize(1);
      // A handler that returns no publisher: its span ends at once, in error.
      assertThat(traced.requestStream(utf8("null"))).isNull();
      assertThat(exporter.getFinishedSpanItems()).hasSize(2);
      assertThat(exporter.getFinishedSpanItems().get(1).getStatus().getStatusCode())
          .isEqualTo(StatusCode.ERROR);

      // Two responses nobody subscribes to (dropped, or the connection closes first): their spans
      // stay open until the connection closes, then end.
      Mono<Message> droppedResponse = traced.requestResponse(utf8("dropped"));
      Flux<Message> droppedStream = traced.requestStream(utf8("dropped"));
      assertThat(exporter.getFinishedSpanItems()).hasSize(2);
      connectionClosed.complete(null);
      List<SpanData> ended = exporter.getFinishedSpanItems();
      assertThat(ended).hasSize(4);
      assertThat(ended.subList(2, 4))
          .extracting(SpanData::getName)
          .containsExactlyInAnyOrder("request-response", "request-stream");
      assertThat(ended.subList(2, 4))
          .allMatch(
              s -> Boolean.TRUE.equals(s.getAttributes().get(AttributeKey.booleanKey("rsocket.connection_closed"))));

      // Subscribed late (here, to release what they hold), and a request after the close: each
      // span ended once, none twice, none left open.
      droppedResponse.block(Duration.ofSeconds(10)).release();
      droppedStream.doOnNext(Message::release).blockLast(Duration.ofSeconds(10));
      traced.requestResponse(utf8("late")).subscribe(Message::release);
      assertThat(exporter.getFinishedSpanItems()).hasSize(5);
      assertThat(exporter.getFinishedSpanItems())
          .extracting(s -> s.getSpanId())
          .doesNotHaveDuplicates();
    }
  }

  /** Reads and writes one field of its own, none of W3C's. */
  private static final class OtherPropagator implements TextMapPropagator {
    @Override
    public Collection<String> fields() {
      return List.of("x-other-trace");
    }

    @Override
    public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {}

    @Override
    public <C> Context extract(Context context, C carrier, TextMapGetter<C> getter) {
      return context;
    }
  }

  /** What the server's handler sees of a request carrying a client's W3C context entries. */
  private static Map<String, String> seenByTheHandler(TextMapPropagator serverPropagator) {
    Map<String, String> fields = new LinkedHashMap<>();
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.root().with(Span.wrap(SpanContext.create(
                "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", TraceFlags.getSampled(),
                TraceState.builder().put("k", "v").build()))),
            fields,
            Map::put);
    ByteBuf md = ByteBufAllocator.DEFAULT.buffer();
    fields.forEach(
        (k, v) -> {
          ByteBuf value = Unpooled.copiedBuffer(v, StandardCharsets.UTF_8);
          CompositeMetadata.encodeEntry(md, k, value);
          value.release();
        });
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    try (OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .setPropagators(ContextPropagators.create(serverPropagator))
            .build()) {
      ReactorResponder traced =
          new RsocketTracing(otel).responder(new Returning(), new CompletableFuture<>());
      Message seen =
          traced
              .requestResponse(Message.of(md, Unpooled.copiedBuffer("d", StandardCharsets.UTF_8)))
              .block(Duration.ofSeconds(10));
      Map<String, String> entries = new LinkedHashMap<>();
      try {
        if (seen.hasMetadata()) {
          CompositeMetadata.Reader r = CompositeMetadata.reader(seen.metadata());
          while (r.next()) {
            entries.put(r.mimeType(), r.content().toString(StandardCharsets.UTF_8));
          }
        }
      } finally {
        seen.release();
      }
      SpanData server = exporter.getFinishedSpanItems().get(0);
      // The span is the client's child exactly when the server read the context.
      assertThat(server.getParentSpanContext().isValid()).isEqualTo(entries.isEmpty());
      return entries;
    }
  }

  @Test
  void theServerRemovesOnlyTheEntriesItsPropagatorReads() {
    // Same propagator: the context is read and the entries, the tracing layer's own, are removed.
    assertThat(seenByTheHandler(W3CTraceContextPropagator.getInstance())).isEmpty();
    // Another propagator: the entries are not its keys; like grpc-java's and SluiceTracing's
    // server side (which remove no header), it leaves them for the application.
    assertThat(seenByTheHandler(new OtherPropagator()))
        .containsOnlyKeys("traceparent", "tracestate")
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .containsEntry("tracestate", "k=v");
  }

  @Test
  void withoutTheVariablesTheCommandsAreNotWrapped() {
    // This JVM runs without OTEL_* (as the build runs it): both are returned as they are.
    org.junit.jupiter.api.Assumptions.assumeFalse(CliTracing.wanted(System.getenv()));
    ReactorResponder responder = new EchoResponder(io.netty.buffer.ByteBufAllocator.DEFAULT);
    assertThat(RsocketTracing.serve(responder, null)).isSameAs(responder);
  }
}
