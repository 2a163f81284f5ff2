package io.sluice.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.StringValue;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.opentelemetry.GrpcOpenTelemetry;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.sluice.Requester;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.rpc.reactor.ReactorServerCalls;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link SluiceTracing} with the OpenTelemetry SDK's in-memory exporter: a client span and a server
 * span with their parent-child link over RSocket and over gRPC, status on failures, a handler's
 * downstream call in the same trace, and traces crossing with grpc-java's own OpenTelemetry tracing
 * ({@code io.grpc:grpc-opentelemetry}) both ways.
 */
class SluiceTracingTest {
  static {
    // grpc-java's OpenTelemetry tracing is behind this flag (read once, when GrpcOpenTelemetry loads).
    System.setProperty("GRPC_EXPERIMENTAL_ENABLE_OTEL_TRACING", "true");
  }

  private static final Duration WAIT = Duration.ofSeconds(30);
  static final MethodDescriptor<StringValue, StringValue> ECHO = method("test.Back", "Echo", MethodKind.UNARY);
  static final MethodDescriptor<StringValue, StringValue> COUNT = method("test.Back", "Count", MethodKind.SERVER_STREAMING);
  static final MethodDescriptor<StringValue, StringValue> HOP = method("test.Front", "Hop", MethodKind.UNARY);

  enum Wire {
    RSOCKET,
    GRPC
  }

  private static final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private static OpenTelemetrySdk otel;
  private static SluiceTracing tracing;
  private static ServerTransport.Bound rsocketServer;
  private static GrpcServer.Running grpcServer;
  private static Requester rsocket;
  private static GrpcChannel grpc;
  /** The front service's own client, to the back service over RSocket, traced. */
  private static ReactorRequester downstream;

  static MethodDescriptor<StringValue, StringValue> method(String service, String name, MethodKind kind) {
    return MethodDescriptor.<StringValue, StringValue>builder()
        .service(service)
        .method(name)
        .kind(kind)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  static ServiceDefinition back() {
    return ServiceDefinition.builder("test.Back")
        .add(ECHO, ReactorServerCalls.unary((StringValue r) -> r.getValue().startsWith("fail")
            ? Mono.error(StatusException.of(Status.Code.UNAVAILABLE, "asked to fail"))
            : Mono.just(StringValue.of("back:" + r.getValue()))))
        .add(COUNT, ReactorServerCalls.serverStreaming((StringValue r) ->
            Flux.range(0, Integer.parseInt(r.getValue())).map(i -> StringValue.of("n" + i))))
        .build();
  }

  // tag::downstream[]
  /** A handler that calls the next service: the server span is current while it runs. */
  static ServiceDefinition front() {
    return ServiceDefinition.builder("test.Front")
        .add(HOP, ReactorServerCalls.unary((StringValue r) ->
            ReactorClientCalls.unary(downstream, ECHO, CallOptions.DEFAULT, r)
                .map(v -> StringValue.of("front:" + v.getValue()))))
        .build();
  }
  // end::downstream[]

  @BeforeAll
  static void start() throws Exception {
    SdkTracerProvider tp = SdkTracerProvider.builder()
        .setSampler(Sampler.alwaysOn())
        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
        .build();
    otel = OpenTelemetrySdk.builder()
        .setTracerProvider(tp)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
    // tag::wiring[]
    tracing = SluiceTracing.create(otel); // any OpenTelemetry: the SDK, or GlobalOpenTelemetry.get()
    ServiceRegistry registry = ServiceRegistry.builder()
        .add(ServerInterceptors.intercept(back(), tracing.serverInterceptor()))
        .add(ServerInterceptors.intercept(front(), tracing.serverInterceptor()))
        .build();
    // end::wiring[]
    rsocketServer = Connections.serve(TcpServerTransport.create("127.0.0.1", 0), ConnectionOptions.defaults(), RpcResponder.acceptor(registry))
        .get(30, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) rsocketServer.address()).getPort();
    rsocket = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT).unwrap();
    downstream = new ReactorRequester(ClientInterceptors.intercept(
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT).unwrap(),
        tracing.clientInterceptor()));
    grpcServer = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    grpc = GrpcClientTransport.create("127.0.0.1", grpcServer.port()).connect().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    rsocket.dispose();
    downstream.dispose();
    grpc.dispose();
    rsocketServer.close();
    grpcServer.close();
    grpcServer.onClose().get(30, TimeUnit.SECONDS);
    otel.close();
  }

  @BeforeEach
  void clear() {
    exporter.reset();
  }

  private static ReactorRequester traced(Wire w) {
    Requester connection = w == Wire.RSOCKET ? rsocket : grpc; // an RSocket connection or a GrpcChannel
    // tag::client[]
    Requester traced = ClientInterceptors.intercept(connection, tracing.clientInterceptor());
    // end::client[]
    return new ReactorRequester(traced);
  }

  /** Waits (bounded) for {@code n} finished spans: a server span may end just after the client's. */
  private static List<SpanData> spans(int n) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (exporter.getFinishedSpanItems().size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).hasSize(n);
    return spans;
  }

  private static SpanData one(List<SpanData> spans, String name, SpanKind kind) {
    List<SpanData> found = spans.stream().filter(s -> s.getName().equals(name) && s.getKind() == kind).toList();
    assertThat(found).as(name + " " + kind + " in " + spans).hasSize(1);
    return found.get(0);
  }

  private static void assertChild(SpanData child, SpanData parent) {
    assertThat(child.getTraceId()).isEqualTo(parent.getTraceId());
    assertThat(child.getParentSpanId()).isEqualTo(parent.getSpanId());
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aClientSpanIsTheParentOfTheServerSpan(Wire w) throws Exception {
    assertThat(ReactorClientCalls.unary(traced(w), ECHO, CallOptions.DEFAULT, StringValue.of("a")).block(WAIT).getValue())
        .isEqualTo("back:a");
    List<SpanData> spans = spans(2);
    SpanData client = one(spans, "test.Back/Echo", SpanKind.CLIENT);
    SpanData server = one(spans, "test.Back/Echo", SpanKind.SERVER);
    assertChild(server, client);
    assertThat(client.getParentSpanContext().isValid()).isFalse(); // a root: nothing was current
    for (SpanData s : spans) {
      assertThat(s.getAttributes().get(SluiceTracing.RPC_SYSTEM)).isEqualTo("grpc");
      assertThat(s.getAttributes().get(SluiceTracing.RPC_SERVICE)).isEqualTo("test.Back");
      assertThat(s.getAttributes().get(SluiceTracing.RPC_METHOD)).isEqualTo("Echo");
      assertThat(s.getAttributes().get(SluiceTracing.RPC_GRPC_STATUS_CODE)).isEqualTo(0L);
      assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aStreamIsOneSpanPerSide(Wire w) throws Exception {
    assertThat(ReactorClientCalls.serverStreaming(traced(w), COUNT, CallOptions.DEFAULT, StringValue.of("5")).count().block(WAIT))
        .isEqualTo(5);
    List<SpanData> spans = spans(2);
    assertChild(one(spans, "test.Back/Count", SpanKind.SERVER), one(spans, "test.Back/Count", SpanKind.CLIENT));
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aFailedCallMarksBothSpans(Wire w) throws Exception {
    assertThatThrownBy(() -> ReactorClientCalls.unary(traced(w), ECHO, CallOptions.DEFAULT, StringValue.of("fail")).block(WAIT))
        .isInstanceOf(StatusException.class);
    List<SpanData> spans = spans(2);
    for (SpanData s : spans) {
      assertThat(s.getStatus().getStatusCode()).as(s.getKind().toString()).isEqualTo(StatusCode.ERROR);
      assertThat(s.getAttributes().get(SluiceTracing.RPC_GRPC_STATUS_CODE)).isEqualTo((long) Status.Code.UNAVAILABLE.value());
    }
    assertChild(one(spans, "test.Back/Echo", SpanKind.SERVER), one(spans, "test.Back/Echo", SpanKind.CLIENT));
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void aHandlersCallContinuesTheTrace(Wire w) throws Exception {
    assertThat(ReactorClientCalls.unary(traced(w), HOP, CallOptions.DEFAULT, StringValue.of("x")).block(WAIT).getValue())
        .isEqualTo("front:back:x");
    List<SpanData> spans = spans(4);
    SpanData caller = one(spans, "test.Front/Hop", SpanKind.CLIENT);
    SpanData front = one(spans, "test.Front/Hop", SpanKind.SERVER);
    SpanData hop = one(spans, "test.Back/Echo", SpanKind.CLIENT);
    SpanData back = one(spans, "test.Back/Echo", SpanKind.SERVER);
    assertChild(front, caller);
    assertChild(hop, front);
    assertChild(back, hop);
    assertThat(spans).extracting(SpanData::getTraceId).containsOnly(caller.getTraceId());
  }

  /** A server whose engine refuses every request (as without a lease): the balancer retries. */
  static final class Refusing implements Requester {
    @Override
    public void fireAndForget(io.sluice.Message request, io.sluice.StreamListener listener) {
      request.release();
    }

    @Override
    public io.sluice.StreamHandle requestResponse(io.sluice.Message request, io.sluice.StreamListener listener) {
      request.release();
      listener.onError(new io.sluice.exceptions.RejectedException("no lease"));
      return null;
    }

    @Override
    public io.sluice.StreamHandle requestStream(io.sluice.Message request, long n, io.sluice.StreamListener listener) {
      return requestResponse(request, listener);
    }

    @Override
    public io.sluice.StreamHandle requestChannel(io.sluice.Message first, boolean complete, long n, io.sluice.StreamListener listener) {
      return requestResponse(first, listener);
    }

    @Override
    public void metadataPush(io.sluice.Message metadata, io.sluice.StreamListener listener) {
      metadata.release();
    }

    @Override
    public io.netty.buffer.ByteBufAllocator alloc() {
      return io.netty.buffer.ByteBufAllocator.DEFAULT;
    }

    @Override
    public java.util.concurrent.Executor executor() {
      return io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}

    @Override
    public void dispose() {}

    @Override
    public java.util.concurrent.CompletableFuture<Void> onClose() {
      return new java.util.concurrent.CompletableFuture<>();
    }
  }

  @Test
  void theBalancersRetriesAreAttemptsUnderOneCallSpan() throws Exception {
    InetSocketAddress refusing = new InetSocketAddress("127.0.0.1", 1);
    InetSocketAddress serving = (InetSocketAddress) rsocketServer.address();
    // tag::balancer[]
    io.sluice.balancer.Balancer balancer = io.sluice.balancer.Balancer.builder()
        .addresses(io.sluice.balancer.AddressSource.fixed(List.of(refusing, serving)))
        .connector(a -> a.equals(refusing)
            ? java.util.concurrent.CompletableFuture.completedFuture((Requester) new Refusing())
            : SluiceClient.builder(TcpClientTransport.create("127.0.0.1", serving.getPort())).connect().map(ReactorRequester::unwrap).toFuture())
        .attemptObserver(tracing.balancerAttempts())
        .build();
    ReactorRequester calls = new ReactorRequester(ClientInterceptors.intercept(balancer, tracing.clientInterceptor()));
    // end::balancer[]
    try {
      for (int i = 0; i < 3000 && balancer.servers().stream().filter(x -> x.state().equals("connected")).count() < 2; i++) {
        Thread.sleep(10); // bounded: both connections up, so a refused first attempt has somewhere to go
      }
      // Each call's first pick is either server (power of two choices): bounded, until one was retried.
      List<SpanData> spans = List.of();
      for (int i = 0; i < 50 && spans.size() != 4; i++) {
        exporter.reset();
        assertThat(ReactorClientCalls.unary(calls, ECHO, CallOptions.DEFAULT, StringValue.of("b")).block(WAIT).getValue())
            .isEqualTo("back:b");
        waitFor(3); // client, server, one attempt
        waitFor(4); // and a second attempt, when the first pick refused
        spans = exporter.getFinishedSpanItems();
      }
      assertThat(spans).as("no call was retried in 50").hasSize(4);
      SpanData call = one(spans, "test.Back/Echo", SpanKind.CLIENT);
      SpanData server = one(spans, "test.Back/Echo", SpanKind.SERVER);
      List<SpanData> attempts = spans.stream().filter(s -> s.getName().equals("Attempt")).toList();
      assertThat(attempts).hasSize(2);
      for (SpanData a : attempts) {
        assertChild(a, call);
      }
      SpanData refused = attempts.stream().filter(a -> a.getStatus().getStatusCode() == StatusCode.ERROR).findFirst().orElseThrow();
      assertThat(refused.getAttributes().get(BalancerAttempts.PREVIOUS_ATTEMPTS)).isEqualTo(0L);
      assertThat(refused.getAttributes().get(BalancerAttempts.RETRIED)).isTrue();
      assertThat(refused.getAttributes().get(BalancerAttempts.SERVER)).isEqualTo("127.0.0.1:1");
      SpanData answered = attempts.stream().filter(a -> a != refused).findFirst().orElseThrow();
      assertThat(answered.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
      assertThat(answered.getAttributes().get(BalancerAttempts.PREVIOUS_ATTEMPTS)).isEqualTo(1L);
      assertChild(server, call);
    } finally {
      balancer.dispose();
    }
  }

  /** True if {@code n} spans finish within a bounded wait (a retried call has 4, else 3). */
  private static boolean waitFor(int n) throws InterruptedException {
    for (int i = 0; i < 100 && exporter.getFinishedSpanItems().size() < n; i++) {
      Thread.sleep(10);
    }
    return exporter.getFinishedSpanItems().size() >= n;
  }

  private static final io.grpc.MethodDescriptor<StringValue, StringValue> GRPC_ECHO =
      io.grpc.MethodDescriptor.<StringValue, StringValue>newBuilder()
          .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Back/Echo")
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .build();

  @Test
  void aGrpcJavaClientsTraceContinuesIntoASluiceServerAndOn() throws Exception {
    ManagedChannelBuilder<?> b = ManagedChannelBuilder.forAddress("127.0.0.1", grpcServer.port()).usePlaintext();
    GrpcOpenTelemetry.newBuilder().sdk(otel).disableAllMetrics().build().configureChannelBuilder(b);
    ManagedChannel channel = b.build();
    try {
      io.grpc.MethodDescriptor<StringValue, StringValue> hop = GRPC_ECHO.toBuilder().setFullMethodName("test.Front/Hop").build();
      StringValue r = ClientCalls.blockingUnaryCall(channel, hop, io.grpc.CallOptions.DEFAULT, StringValue.of("g"));
      assertThat(r.getValue()).isEqualTo("front:back:g");
    } finally {
      channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
    }
    // grpc-java: a call span "Sent.test.Front.Hop" and an attempt span under it, whose context it sends.
    List<SpanData> spans = spans(5);
    SpanData sent = one(spans, "Sent.test.Front.Hop", SpanKind.INTERNAL);
    SpanData attempt = one(spans, "Attempt.test.Front.Hop", SpanKind.INTERNAL);
    SpanData front = one(spans, "test.Front/Hop", SpanKind.SERVER);
    SpanData hop = one(spans, "test.Back/Echo", SpanKind.CLIENT);
    SpanData back = one(spans, "test.Back/Echo", SpanKind.SERVER);
    assertChild(attempt, sent);
    assertChild(front, attempt);
    assertChild(hop, front);
    assertChild(back, hop);
  }

  @Test
  void aSluiceClientsTraceContinuesIntoAGrpcJavaServer() throws Exception {
    ServerBuilder<?> sb = ServerBuilder.forPort(0);
    GrpcOpenTelemetry.newBuilder().sdk(otel).disableAllMetrics().build().configureServerBuilder(sb);
    Server server = sb.addService(ServerServiceDefinition.builder("test.Back")
            .addMethod(GRPC_ECHO, ServerCalls.asyncUnaryCall((StringValue req, io.grpc.stub.StreamObserver<StringValue> out) -> {
              out.onNext(StringValue.of("java:" + req.getValue()));
              out.onCompleted();
            }))
            .build())
        .build()
        .start();
    GrpcChannel channel = GrpcClientTransport.create("127.0.0.1", server.getPort()).connect().get(30, TimeUnit.SECONDS);
    try {
      ReactorRequester r = new ReactorRequester(ClientInterceptors.intercept(channel, tracing.clientInterceptor()));
      assertThat(ReactorClientCalls.unary(r, ECHO, CallOptions.DEFAULT, StringValue.of("s")).block(WAIT).getValue())
          .isEqualTo("java:s");
      List<SpanData> spans = spans(2);
      SpanData client = one(spans, "test.Back/Echo", SpanKind.CLIENT);
      SpanData recv = one(spans, "Recv.test.Back.Echo", SpanKind.INTERNAL);
      assertChild(recv, client);
    } finally {
      channel.dispose();
      server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
    }
  }
}
