package io.sluice.spring.boot;

import io.sluice.core.ConnectionOptions;

/**
 * Changes the connection options of the auto-configured server (its RSocket transports) after
 * {@code sluice.server.*} set them: declare beans of this type for options the properties do not
 * name.
 */
@FunctionalInterface
public interface SluiceConnectionOptionsCustomizer {
  void customize(ConnectionOptions.Builder options);
}
