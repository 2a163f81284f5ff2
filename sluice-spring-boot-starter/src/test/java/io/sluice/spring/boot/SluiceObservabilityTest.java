package io.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.sluice.examples.rpc.FuturesGreeterClient;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.micrometer.SluiceMetrics;
import io.sluice.opentelemetry.SluiceTracing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Metrics into the context's MeterRegistry and traces through its OpenTelemetry, when the modules
 * and the beans are there; nothing, and no failure, when they are not.
 */
class SluiceObservabilityTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final HelloRequest ADA = HelloRequest.newBuilder().setName("Ada").build();
  private static final String SAY_HELLO = "sluice.examples.Greeter/SayHello";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceObservabilityAutoConfiguration.class));

  private ApplicationContextRunner client(String stub, String transport, int port) {
    return runner.withPropertyValues(
        "sluice.server.enabled=false",
        "sluice.client.greeter.wait-for-server=30s",
        "sluice.client.greeter.stub=" + stub,
        "sluice.client.greeter.transport=" + transport,
        "sluice.client.greeter.address=127.0.0.1:" + port);
  }

  /**
   * One port, one registry: a call over RSocket (TCP) and one over gRPC give the server's
   * connection meters (sluice.*), the RSocket wire's rpc.server.* and the gRPC wire's
   * grpc.server.* meters, each counting its own call once.
   */
  @Test
  void aMeterRegistryBeanGetsConnectionAndCallMetersOfBothWires() {
    runner
        .withBean(GreeterService.class)
        .withBean(SimpleMeterRegistry.class)
        .withPropertyValues("sluice.server.port=0", "sluice.server.transport=one-port")
        .run(
            server -> {
              assertThat(server).hasNotFailed().hasSingleBean(SluiceMetrics.class);
              MeterRegistry registry = server.getBean(MeterRegistry.class);
              assertThat(server.getBean(SluiceMetrics.class).registry()).isSameAs(registry);
              int port = server.getBean(SluiceServerLifecycle.class).port();
              client(ReactorGreeterClient.class.getName(), "tcp", port)
                  .run(
                      c -> {
                        assertThat(c).hasNotFailed().doesNotHaveBean(SluiceMetrics.class);
                        assertThat(c.getBean(ReactorGreeterClient.class).sayHello(ADA).block(WAIT).getMessage())
                            .isEqualTo("hello Ada");
                      });
              client(FuturesGreeterClient.class.getName(), "grpc", port)
                  .run(
                      c -> {
                        assertThat(c).hasNotFailed();
                        assertThat(c.getBean(FuturesGreeterClient.class).sayHello(ADA).get(30, TimeUnit.SECONDS).getMessage())
                            .isEqualTo("hello Ada");
                      });
              assertThat(registry.get("rpc.server.call.started").tag("rpc.service", "sluice.examples.Greeter")
                      .tag("rpc.method", "SayHello").counter().count())
                  .isEqualTo(1.0);
              assertThat(registry.get("grpc.server.call.started").tag("grpc.method", SAY_HELLO).counter().count())
                  .isEqualTo(1.0);
              assertThat(registry.get("sluice.connections.opened").tag("side", "server").functionCounter().count())
                  .isGreaterThanOrEqualTo(1.0);
              // The RSocket call's stream; the gRPC call is not an RSocket stream.
              assertThat(registry.get("sluice.streams.started").tag("side", "server").tag("interaction", "request_response")
                      .functionCounter().count())
                  .isEqualTo(1.0);
            });
  }

  /** The modules on the class path but no registry or OpenTelemetry bean: nothing is bound. */
  @Test
  void withoutTheBeansNothingIsBound() {
    runner
        .withPropertyValues("sluice.server.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(SluiceMetrics.class).doesNotHaveBean(SluiceTracing.class);
              assertThat(context).doesNotHaveBean(SluiceObservability.class);
            });
  }

  /**
   * Neither Micrometer nor OpenTelemetry nor the Sluice modules on the class path: the context
   * starts and serves calls all the same.
   */
  @Test
  void withoutMicrometerAndOpenTelemetryOnTheClassPathTheServerStillStartsAndServes() {
    FilteredClassLoader hidden =
        new FilteredClassLoader("io.micrometer.", "io.opentelemetry.", "io.sluice.micrometer.", "io.sluice.opentelemetry.");
    runner
        .withClassLoader(hidden)
        .withBean(GreeterService.class)
        .withPropertyValues("sluice.server.port=0")
        .run(
            server -> {
              assertThat(server).hasNotFailed().doesNotHaveBean(SluiceObservability.class);
              assertThat(server.getBean(SluiceServerLifecycle.class).isRunning()).isTrue();
              client(ReactorGreeterClient.class.getName(), "tcp", server.getBean(SluiceServerLifecycle.class).port())
                  .withClassLoader(hidden)
                  .run(
                      c -> assertThat(c.getBean(ReactorGreeterClient.class).sayHello(ADA).block(WAIT).getMessage())
                          .isEqualTo("hello Ada"));
            });
  }

  /**
   * An OpenTelemetry bean in the server's context and in the client's: a CLIENT span for the stub
   * bean's call and a SERVER span for the served call, in one trace, the server's the child.
   */
  @Test
  void anOpenTelemetryBeanTracesTheServedCallsAndTheClientBeansCalls() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    // The contexts would close an AutoCloseable bean: they get a view of the SDK, which is this test's.
    OpenTelemetry view =
        new OpenTelemetry() {
          @Override
          public TracerProvider getTracerProvider() {
            return otel.getTracerProvider();
          }

          @Override
          public ContextPropagators getPropagators() {
            return otel.getPropagators();
          }
        };
    try {
      runner
          .withBean(GreeterService.class)
          .withBean(OpenTelemetry.class, () -> view)
          .withPropertyValues("sluice.server.port=0")
          .run(
              server -> {
                assertThat(server).hasNotFailed().hasSingleBean(SluiceTracing.class).doesNotHaveBean(SluiceMetrics.class);
                client(ReactorGreeterClient.class.getName(), "tcp", server.getBean(SluiceServerLifecycle.class).port())
                    .withBean(OpenTelemetry.class, () -> view)
                    .run(
                        c -> {
                          assertThat(c).hasNotFailed().hasSingleBean(SluiceTracing.class);
                          assertThat(c.getBean(ReactorGreeterClient.class).sayHello(ADA).block(WAIT).getMessage())
                              .isEqualTo("hello Ada");
                        });
              });
      List<SpanData> ended = awaitSpans(spans, 2);
      SpanData client = ended.stream().filter(s -> s.getKind() == SpanKind.CLIENT).findFirst().orElseThrow();
      SpanData server = ended.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
      assertThat(client.getName()).isEqualTo(SAY_HELLO);
      assertThat(server.getName()).isEqualTo(SAY_HELLO);
      assertThat(server.getTraceId()).isEqualTo(client.getTraceId());
      assertThat(server.getParentSpanId()).isEqualTo(client.getSpanId());
    } finally {
      otel.close();
    }
  }

  /** The spans once {@code n} have ended (the server's may end just after the client has its answer). */
  private static List<SpanData> awaitSpans(InMemorySpanExporter spans, int n) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (spans.getFinishedSpanItems().size() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(spans.getFinishedSpanItems()).hasSize(n);
    return spans.getFinishedSpanItems();
  }
}
