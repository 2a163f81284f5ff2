package io.sluice.grpc.interop;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The interop service and client over RSocket on TCP, until the gRPC wire transports serve and
 * call it: the connection options let through very_large_request's 10 MiB message (RSocket
 * fragments it; Sluice's defaults reassemble at most 4 MiB). Stateless.
 */
public final class InteropRsocket {
  /** Largest message either side reassembles: 10 MiB and room to spare. */
  public static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private static final Duration WAIT = Duration.ofSeconds(10);

  private InteropRsocket() {}

  /** Connection options with room for the interop cases' largest messages. */
  public static ConnectionOptions options() {
    return ConnectionOptions.builder()
        .maxReassembledSize(MAX_MESSAGE_BYTES)
        .maxReassemblyBytes(2 * MAX_MESSAGE_BYTES)
        .build();
  }

  /** Serves {@code registry} over TCP on {@code host}:{@code port} (0: any free port). */
  public static ServerTransport.Bound serve(String host, int port, ServiceRegistry registry)
      throws InterruptedException, ExecutionException, TimeoutException {
    return serve(host, port, registry, options(), io.sluice.rpc.RpcInstrumentation.NONE);
  }

  /** As {@link #serve(String, int, ServiceRegistry)} with these options and instrumentation. */
  public static ServerTransport.Bound serve(
      String host,
      int port,
      ServiceRegistry registry,
      ConnectionOptions options,
      io.sluice.rpc.RpcInstrumentation instrumentation)
      throws InterruptedException, ExecutionException, TimeoutException {
    return Connections.serve(
            TcpServerTransport.create(host, port), options, RpcResponder.acceptor(registry, instrumentation))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Connects to an interop server over TCP; dispose the requester when done. */
  public static ReactorRequester connect(String host, int port) {
    return SluiceClient.builder(TcpClientTransport.create(host, port)).options(options()).connect().block(WAIT);
  }
}
