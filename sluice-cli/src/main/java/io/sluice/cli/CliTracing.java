package io.sluice.cli;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.sluice.Requester;
import io.sluice.opentelemetry.SluiceTracing;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import java.util.Map;

/**
 * Traces of the CLI's commands (the RPC ones here, the raw RSocket {@code server} and {@code client}
 * in {@link RsocketTracing}), when the standard OpenTelemetry environment variables ask for
 * them: {@code OTEL_EXPORTER_OTLP_ENDPOINT} (or {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}, or an
 * {@code OTEL_TRACES_EXPORTER} other than {@code none}) turns them on, and the SDK's autoconfigure
 * reads the rest ({@code OTEL_SERVICE_NAME}, {@code OTEL_TRACES_SAMPLER}, {@code
 * OTEL_EXPORTER_OTLP_PROTOCOL}; OTLP over HTTP/protobuf unless it says otherwise, and only that
 * protocol's sender, the JDK HTTP client's, is shipped). Metrics and logs are not
 * exported. With none of them set, or {@code OTEL_SDK_DISABLED=true}, nothing is built and calls
 * carry no interceptor. The SDK flushes and shuts down at JVM exit (its shutdown hook).
 */
final class CliTracing {
  private CliTracing() {}

  private static volatile OpenTelemetrySdk sdk;
  private static volatile SluiceTracing tracing;
  private static volatile boolean decided;

  /** True when {@code env} asks for traces. */
  static boolean wanted(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.get("OTEL_SDK_DISABLED"))) {
      return false;
    }
    String exporter = env.get("OTEL_TRACES_EXPORTER");
    if (exporter != null && !exporter.isBlank()) {
      return !exporter.strip().equals("none");
    }
    return notBlank(env.get("OTEL_EXPORTER_OTLP_ENDPOINT")) || notBlank(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"));
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  /** The process's tracing, built once from the environment; null when not asked for. */
  static SluiceTracing fromEnvironment() {
    return openTelemetry() == null ? null : tracing;
  }

  /** The process's OpenTelemetry SDK, built once from the environment; null when not asked for. */
  static synchronized OpenTelemetrySdk openTelemetry() {
    if (!decided) {
      decided = true;
      if (wanted(System.getenv())) {
        sdk =
            AutoConfiguredOpenTelemetrySdk.builder()
                // Defaults the variables override: OTLP over HTTP/protobuf (the JDK sender is the one on
                // the classpath), traces only.
                .addPropertiesSupplier(
                    () ->
                        Map.of(
                            "otel.exporter.otlp.protocol", "http/protobuf",
                            "otel.metrics.exporter", "none",
                            "otel.logs.exporter", "none"))
                .build()
                .getOpenTelemetrySdk();
        tracing = SluiceTracing.create(sdk);
      }
    }
    return sdk;
  }

  /** {@code registry} with every service traced, or itself without tracing. */
  static ServiceRegistry serve(ServiceRegistry registry) {
    SluiceTracing t = fromEnvironment();
    if (t == null) {
      return registry;
    }
    ServiceRegistry.Builder b = ServiceRegistry.builder();
    for (ServiceDefinition d : registry.services()) {
      b.add(ServerInterceptors.intercept(d, t.serverInterceptor()));
    }
    return b.build();
  }

  /** {@code requester} with its RPC calls traced, or itself without tracing. */
  static Requester call(Requester requester) {
    SluiceTracing t = fromEnvironment();
    return t == null ? requester : ClientInterceptors.intercept(requester, t.clientInterceptor());
  }
}
