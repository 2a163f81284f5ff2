package io.sluice.spring.boot;

import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Sluice for Spring Boot: a server from {@code sluice.server.*} serving every generated Sluice
 * service bean, client stubs from {@code sluice.client.<name>.*}, and, with the actuator, their
 * health; metrics and traces through {@link SluiceObservabilityAutoConfiguration}. See
 * docs/guide/spring.md.
 */
@AutoConfiguration
@ConditionalOnClass(ServiceRegistry.class)
@EnableConfigurationProperties({SluiceServerProperties.class, SluiceClientProperties.class})
public class SluiceAutoConfiguration {

  /** The server, started and stopped with the context. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "sluice.server", name = "enabled", havingValue = "true", matchIfMissing = true)
  public SluiceServerLifecycle sluiceServer(
      SluiceServerProperties properties,
      ListableBeanFactory beans,
      Environment environment,
      ObjectProvider<RpcInstrumentation> instrumentation,
      ObjectProvider<SluiceConnectionOptionsCustomizer> customizers,
      ObjectProvider<SluiceObservability> observability) {
    // An application's RpcInstrumentation bean observes every call of the server, on both wires;
    // metrics and tracing come as SluiceObservability beans (SluiceObservabilityAutoConfiguration).
    return new SluiceServerLifecycle(
        properties,
        beans,
        environment,
        instrumentation.getIfUnique(),
        customizers.orderedStream().toList(),
        observability.orderedStream().toList());
  }

  /** The client beans of {@code sluice.client.<name>.*}. */
  @Bean
  public static SluiceClientsRegistrar sluiceClientsRegistrar() {
    return new SluiceClientsRegistrar();
  }
}
