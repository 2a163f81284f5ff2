package io.sluice.spring.boot;

import io.sluice.balancer.Balancer;
import java.util.List;
import java.util.Map;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Registers, for each {@code sluice.client.<name>}, a {@link Balancer} bean named {@code
 * <name>SluiceBalancer} and the generated client stub bean named {@code <name>} (of the class
 * {@code sluice.client.<name>.stub} names, so it is injected by type). The balancer connects in the
 * background; a call made before a server is up waits for one ({@code wait-for-server}). The
 * context's {@link SluiceObservability} beans observe both (connection metrics, call spans).
 */
public class SluiceClientsRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware, BeanFactoryAware {
  /** The suffix of each client's balancer bean. */
  public static final String BALANCER_SUFFIX = "SluiceBalancer";

  private Environment environment;
  private BeanFactory beanFactory;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
    Map<String, SluiceClientProperties.Client> clients =
        Binder.get(environment)
            .bind("sluice.client", Bindable.mapOf(String.class, SluiceClientProperties.Client.class))
            .orElse(Map.of());
    for (Map.Entry<String, SluiceClientProperties.Client> e : clients.entrySet()) {
      String name = e.getKey();
      SluiceClientProperties.Client c = e.getValue();
      SluiceClientFactory.validate(name, c);
      String balancerName = name + BALANCER_SUFFIX;
      RootBeanDefinition balancer =
          new RootBeanDefinition(Balancer.class, () -> SluiceClientFactory.balancer(name, c, observability()));
      balancer.setDestroyMethodName("dispose");
      registry.registerBeanDefinition(balancerName, balancer);
      RootBeanDefinition stub =
          new RootBeanDefinition(
              (Class) c.getStub(),
              () -> SluiceClientFactory.stub(name, c, beanFactory.getBean(balancerName, Balancer.class), observability()));
      stub.setDependsOn(balancerName);
      registry.registerBeanDefinition(name, stub);
    }
  }

  /** The metrics and tracing of the context ({@link SluiceObservability} beans). */
  private List<SluiceObservability> observability() {
    return beanFactory.getBeanProvider(SluiceObservability.class).orderedStream().toList();
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {}
}
