package io.sluice.rpc;

/** Something that can be served: generated server classes and {@link ServiceDefinition} itself. */
@FunctionalInterface
public interface BindableService {
  /** The service's definition: name and method handlers. */
  ServiceDefinition bindService();
}
