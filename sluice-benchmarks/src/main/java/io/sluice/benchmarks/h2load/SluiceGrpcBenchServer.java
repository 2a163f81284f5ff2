package io.sluice.benchmarks.h2load;

import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;

/**
 * The server process of {@code --compare-grpc --h2load} for Sluice ({@code BenchMain
 * grpc-bench-server}): {@link GrpcServer} (h2c, default options) on 127.0.0.1, a free port, one NIO
 * event loop, serving {@code grpc.testing.BenchmarkService} with the Reactor-flavor generated
 * server. Prints {@code LISTENING <port>}, serves until its standard input closes, then stops.
 */
public final class SluiceGrpcBenchServer {
  /** The event loop's thread name prefix (seen in profiles). */
  static final String LOOP = "sluice-grpc-server-loop";

  private SluiceGrpcBenchServer() {}

  public static int run(PrintStream out, InputStream in) throws IOException {
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(new ReactorBenchmarkServiceServer(new SluiceBenchmarkService()))
            .build();
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(registry)
            .withEventLoopGroup(EventLoops.newGroup(1, LOOP, IoMode.NIO))
            .start();
    out.println("LISTENING " + server.port());
    out.flush();
    while (in.read() >= 0) {
      // serve until the parent closes our standard input (or ends us)
    }
    server.stop(Duration.ofSeconds(1)).join();
    return 0;
  }
}
