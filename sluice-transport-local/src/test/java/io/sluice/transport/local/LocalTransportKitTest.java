package io.sluice.transport.local;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The in-JVM transport runs the transport test kit. */
class LocalTransportKitTest extends TransportTestKit {
  private static final AtomicInteger NAMES = new AtomicInteger();
  private final Map<ServerTransport.Bound, String> names = new ConcurrentHashMap<>();

  @Override
  protected ServerTransport serverTransport() {
    String name = "kit-" + NAMES.incrementAndGet();
    ServerTransport server = LocalTransport.server(name);
    return onConnection ->
        server
            .bind(onConnection)
            .thenApply(
                bound -> {
                  names.put(bound, name);
                  return bound;
                });
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return LocalTransport.client(names.get(server));
  }
}
