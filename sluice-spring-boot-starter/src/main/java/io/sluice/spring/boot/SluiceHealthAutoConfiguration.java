package io.sluice.spring.boot;

import io.sluice.balancer.Balancer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/** Actuator health: the server accepting, each client's balancer having a live server. */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnProperty(prefix = "management.health.sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SluiceHealthAutoConfiguration {
  @Bean
  @ConditionalOnBean(SluiceServerLifecycle.class)
  @ConditionalOnMissingBean(name = "sluiceServerHealthIndicator")
  public HealthIndicator sluiceServerHealthIndicator(SluiceServerLifecycle server) {
    return new SluiceHealthIndicators.Server(server);
  }

  @Bean
  @Conditional(OnSluiceClientsCondition.class)
  @ConditionalOnMissingBean(name = "sluiceClientsHealthIndicator")
  public HealthIndicator sluiceClientsHealthIndicator(Map<String, Balancer> balancers) {
    Map<String, Balancer> byClient = new LinkedHashMap<>();
    balancers.forEach(
        (bean, balancer) ->
            byClient.put(
                bean.endsWith(SluiceClientsRegistrar.BALANCER_SUFFIX)
                    ? bean.substring(0, bean.length() - SluiceClientsRegistrar.BALANCER_SUFFIX.length())
                    : bean,
                balancer));
    return new SluiceHealthIndicators.Clients(byClient);
  }
}
