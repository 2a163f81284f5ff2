package io.sluice.rpc;

/**
 * Something that can be served: generated server classes and {@link ServiceDefinition} itself.
 *
 * <p>{@code ServiceRegistry.Builder.add} calls {@link #bindService()} on the thread that builds the
 * registry. Holds no buffers.
 */
@FunctionalInterface
public interface BindableService {
  /** The service's definition: name and method handlers. */
  ServiceDefinition bindService();
}
