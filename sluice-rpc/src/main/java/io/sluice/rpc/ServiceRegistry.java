package io.sluice.rpc;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The services one server offers, looked up by name per call; several services share one
 * connection. Immutable and thread-safe.
 *
 * <pre>{@code
 * ServiceRegistry registry =
 *     ServiceRegistry.builder().add(new ReactorGreeterServer(impl)).add(otherService).build();
 * }</pre>
 *
 * <p>Holds no buffers.
 */
public final class ServiceRegistry {
  private final Map<String, ServiceDefinition> services;

  private ServiceRegistry(Map<String, ServiceDefinition> services) {
    this.services = Collections.unmodifiableMap(new LinkedHashMap<>(services));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The service named {@code service}, or null. */
  public ServiceDefinition service(String service) {
    return services.get(service);
  }

  /** The method {@code service/method}, or null. */
  public ServerMethodDefinition<?, ?> lookup(String service, String method) {
    ServiceDefinition s = services.get(service);
    return s == null ? null : s.method(method);
  }

  public Collection<ServiceDefinition> services() {
    return services.values();
  }

  /** Collects services; not thread-safe. */
  public static final class Builder {
    private final Map<String, ServiceDefinition> services = new LinkedHashMap<>();

    private Builder() {}

    /** Adds a service; each name once. */
    public Builder add(BindableService service) {
      ServiceDefinition d = Objects.requireNonNull(service, "service").bindService();
      if (services.putIfAbsent(d.name(), d) != null) {
        throw new IllegalArgumentException("service " + d.name() + " added twice");
      }
      return this;
    }

    public ServiceRegistry build() {
      return new ServiceRegistry(services);
    }
  }
}
