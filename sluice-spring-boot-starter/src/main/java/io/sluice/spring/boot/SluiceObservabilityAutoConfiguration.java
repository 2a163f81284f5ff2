package io.sluice.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.sluice.core.ConnectionOptions;
import io.sluice.micrometer.SluiceMetrics;
import io.sluice.opentelemetry.SluiceTracing;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerInterceptor;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binds Sluice to the application's observability, each part only when its module is on the class
 * path (both are optional dependencies of the starter) and the context has the bean it needs:
 *
 * <ul>
 *   <li>sluice-micrometer and a {@code MeterRegistry} bean: a {@link SluiceMetrics} over it, whose
 *       connection meters ({@code sluice.*}) observe the server's and the client beans' RSocket
 *       connections, and whose RPC meters observe the server's calls ({@code rpc.server.*} on the
 *       RSocket wire, gRFC A66's {@code grpc.server.*} on the gRPC wire);
 *   <li>sluice-opentelemetry and an {@code OpenTelemetry} bean: a {@link SluiceTracing} over it,
 *       whose interceptors make a span of every call the server serves and every call of the client
 *       beans, the trace context carried in the calls' headers.
 * </ul>
 *
 * <p>Each is a {@link SluiceObservability} bean; {@code sluice.metrics.enabled=false} and {@code
 * sluice.tracing.enabled=false} turn them off. Runs after Spring Boot's own metrics and OpenTelemetry
 * configurations, so their beans are seen.
 */
@AutoConfiguration(
    before = SluiceAutoConfiguration.class,
    afterName = {
      // Spring Boot 3.x's registry and SDK (Boot 4 moved them; the starter is built on 3.5)
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration"
    })
public class SluiceObservabilityAutoConfiguration {

  /** Micrometer: sluice-micrometer on the class path and a MeterRegistry bean. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.sluice.micrometer.SluiceMetrics", "io.micrometer.core.instrument.MeterRegistry"})
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  @ConditionalOnProperty(prefix = "sluice.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
  static class Metrics {
    /** Sluice's meters in the context's registry (the one registry when there are several: the primary). */
    @Bean
    @ConditionalOnMissingBean
    SluiceMetrics sluiceMetrics(MeterRegistry registry) {
      return SluiceMetrics.of(registry);
    }

    @Bean
    SluiceObservability sluiceMetricsObservability(SluiceMetrics metrics) {
      return new SluiceObservability() {
        @Override
        public RpcInstrumentation rsocketServer() {
          return metrics.rsocketServer();
        }

        @Override
        public RpcInstrumentation grpcServer() {
          return metrics.grpcServer();
        }

        @Override
        public void customizeConnections(ConnectionOptions.Builder options) {
          options.observer(metrics.connections());
        }

        @Override
        public String toString() {
          return "Sluice metrics into " + metrics.registry().getClass().getSimpleName();
        }
      };
    }
  }

  /** OpenTelemetry: sluice-opentelemetry on the class path and an OpenTelemetry bean. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.sluice.opentelemetry.SluiceTracing", "io.opentelemetry.api.OpenTelemetry"})
  @ConditionalOnBean(type = "io.opentelemetry.api.OpenTelemetry")
  @ConditionalOnProperty(prefix = "sluice.tracing", name = "enabled", havingValue = "true", matchIfMissing = true)
  static class Tracing {
    @Bean
    @ConditionalOnMissingBean
    SluiceTracing sluiceTracing(OpenTelemetry openTelemetry) {
      return SluiceTracing.create(openTelemetry);
    }

    @Bean
    SluiceObservability sluiceTracingObservability(SluiceTracing tracing) {
      return new SluiceObservability() {
        @Override
        public List<ServerInterceptor> serverInterceptors() {
          return List.of(tracing.serverInterceptor());
        }

        @Override
        public List<ClientInterceptor> clientInterceptors() {
          return List.of(tracing.clientInterceptor());
        }

        @Override
        public String toString() {
          return "Sluice tracing";
        }
      };
    }
  }
}
