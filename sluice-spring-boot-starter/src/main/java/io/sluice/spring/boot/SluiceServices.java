package io.sluice.spring.boot;

import io.sluice.rpc.BindableService;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the application's Sluice services among its beans: every {@link BindableService} bean (a
 * generated {@code <Flavor><Service>Server}, a {@code Grpc<Service>ImplBase} subclass, a {@link
 * ServiceDefinition}), and every bean that implements a generated service interface of any flavor
 * ({@code ReactorGreeter}, {@code FuturesGreeter}, ...), which is wrapped in the generated server
 * class protoc-gen-sluice wrote beside the interface ({@code <interface>Server}). Generated clients
 * ({@code <interface>Client}) implement the interface too and are left out.
 */
public final class SluiceServices {
  private SluiceServices() {}

  /** The services of {@code beans}, by service name, each with the bean it came from. */
  public static ServiceRegistry registry(ListableBeanFactory beans) {
    Map<String, String> origin = new LinkedHashMap<>();
    ServiceRegistry.Builder registry = ServiceRegistry.builder();
    for (String name : beans.getBeanNamesForType(BindableService.class, false, true)) {
      add(registry, origin, name, beans.getBean(name, BindableService.class));
    }
    for (String name : beans.getBeanNamesForType(Object.class, false, true)) {
      Class<?> type = beans.getType(name, false);
      if (type == null || BindableService.class.isAssignableFrom(type)) {
        continue;
      }
      Class<?> user = ClassUtils.getUserClass(type);
      for (Class<?> iface : ClassUtils.getAllInterfacesForClassAsSet(user)) {
        Constructor<?> server = generatedServer(iface);
        if (server == null || user.getName().equals(iface.getName() + "Client")) {
          continue;
        }
        BindableService service;
        try {
          service = (BindableService) server.newInstance(beans.getBean(name));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(
              "cannot serve bean '" + name + "' through " + server.getDeclaringClass().getName(), e);
        }
        add(registry, origin, name, service);
      }
    }
    return registry.build();
  }

  private static void add(
      ServiceRegistry.Builder registry, Map<String, String> origin, String bean, BindableService service) {
    ServiceDefinition d = service.bindService();
    String before = origin.putIfAbsent(d.name(), bean);
    if (before != null) {
      throw new IllegalStateException(
          "Sluice service " + d.name() + " is served by two beans, '" + before + "' and '" + bean
              + "': keep one");
    }
    registry.add(d);
  }

  /**
   * The public constructor {@code <iface>Server(<iface>)} when {@code iface} is a generated service
   * interface (it declares {@code String SERVICE} and the server class beside it is a {@link
   * BindableService}), else null.
   */
  static Constructor<?> generatedServer(Class<?> iface) {
    try {
      Field service = iface.getField("SERVICE");
      if (service.getType() != String.class || !Modifier.isStatic(service.getModifiers())) {
        return null;
      }
      Class<?> server = ClassUtils.forName(iface.getName() + "Server", iface.getClassLoader());
      if (!BindableService.class.isAssignableFrom(server)) {
        return null;
      }
      return server.getConstructor(iface);
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }
}
