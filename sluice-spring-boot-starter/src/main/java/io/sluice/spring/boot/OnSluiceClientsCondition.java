package io.sluice.spring.boot;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code sluice.client.*} names a client. The client beans are registered by {@link
 * SluiceClientsRegistrar} after configuration classes are read, so {@code @ConditionalOnBean} cannot
 * see them.
 */
class OnSluiceClientsCondition extends SpringBootCondition {
  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    Map<String, Object> clients =
        Binder.get(context.getEnvironment())
            .bind("sluice.client", Bindable.mapOf(String.class, Object.class))
            .orElse(Map.of());
    return clients.isEmpty()
        ? ConditionOutcome.noMatch("no sluice.client.* configured")
        : ConditionOutcome.match("sluice.client." + clients.keySet() + " configured");
  }
}
