package io.sluice.cli;

import io.sluice.Requester;
import io.sluice.grpc.interop.InteropClient;
import io.sluice.grpc.interop.InteropGrpc;
import io.sluice.grpc.interop.InteropRsocket;
import io.sluice.grpc.interop.InteropServices;
import io.sluice.grpc.interop.TestServiceImpl;
import io.sluice.core.ConnectionOptions;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServer;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * {@code grpc-test-server} and {@code grpc-test-client}: grpc.testing.TestService with Sluice stubs
 * (sluice-grpc-interop), over gRPC (h2c, the default: any gRPC interop peer) or over Sluice's RPC on
 * RSocket over TCP ({@code --transport rsocket}).
 */
final class GrpcTestCommands {
  /** How long one wait of a client case may take before the case fails (a hang guard). */
  private static final Duration CASE_WAIT = Duration.ofSeconds(30);

  private GrpcTestCommands() {}

  /** Serves TestService until killed; prints {@code LISTENING <port>} once bound. */
  static int server(Args a, PrintStream out, PrintStream err) throws InterruptedException {
    String host = a.get("host", "127.0.0.1");
    int port = port(a, 0);
    String transport = transport(a);
    boolean console = a.flag("console");
    if (console && !transport.equals("grpc")) {
      throw new Args.UsageException("--console is served on the gRPC port: drop --transport rsocket");
    }
    MetricsEndpoint metrics = MetricsEndpoint.start(a, err);
    try (TestServiceImpl service = new TestServiceImpl("sluice-" + ProcessHandle.current().pid())) {
      ServiceRegistry registry = CliTracing.serve(InteropServices.registry(service));
      CompletableFuture<Void> closed;
      int bound;
      if (transport.equals("grpc")) {
        GrpcServer.Running server =
            InteropGrpc.serve(
                host,
                port,
                registry,
                metrics == null ? RpcInstrumentation.NONE : metrics.metrics().grpcServer(),
                console);
        bound = server.port();
        closed = server.onClose();
      } else {
        ConnectionOptions options = InteropRsocket.options();
        RpcInstrumentation instrumentation = RpcInstrumentation.NONE;
        if (metrics != null) {
          options = options.toBuilder().observer(metrics.metrics().connections()).build();
          instrumentation = metrics.metrics().rsocketServer();
        }
        ServerTransport.Bound server =
            InteropRsocket.serve(host, port, registry, options, instrumentation);
        bound = ((InetSocketAddress) server.address()).getPort();
        closed = server.onClose();
      }
      if (console) {
        err.println("sluice grpc-test-server: the console is at http://" + hostForUrl(host) + ":" + bound
            + "/console/ (loopback clients only)");
        err.flush();
      }
      out.println("LISTENING " + bound);
      out.flush();
      closed.join();
      return 0;
    } catch (ExecutionException | TimeoutException | IllegalStateException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      err.println("sluice grpc-test-server: cannot serve on " + host + ":" + port + ": " + cause);
      return 1;
    } finally {
      if (metrics != null) {
        metrics.close();
      }
    }
  }

  /** {@code host} as a URL names it ({@code [::1]} for IPv6). */
  static String hostForUrl(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** {@code --transport}: grpc (default) or rsocket. */
  private static String transport(Args a) {
    String transport = a.get("transport", "grpc");
    if (!transport.equals("rsocket") && !transport.equals("grpc")) {
      throw new Args.UsageException("--transport is grpc or rsocket, got " + transport);
    }
    return transport;
  }

  /** Runs the cases; 0 only when every one passed. */
  static int client(Args a, PrintStream out, PrintStream err) throws InterruptedException {
    String host = a.get("host", "127.0.0.1");
    int port = port(a, -1);
    if (port <= 0) {
      throw new Args.UsageException("--port is required (the TestService server's port)");
    }
    List<String> cases;
    try {
      String csv = a.get("test_case", null);
      cases = csv == null ? InteropClient.CASES : InteropClient.select(csv);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--test_case: " + e.getMessage());
    }
    String transport = transport(a);
    Requester requester;
    try {
      requester =
          transport.equals("grpc") ? InteropGrpc.connect(host, port) : InteropRsocket.connect(host, port).unwrap();
    } catch (RuntimeException e) {
      err.println("sluice grpc-test-client: cannot connect to " + host + ":" + port + " (" + transport + "): "
          + e.getMessage());
      return 1;
    }
    try {
      return new InteropClient(CliTracing.call(requester), CASE_WAIT).runAll(cases, out) == 0 ? 0 : 1;
    } finally {
      requester.dispose();
    }
  }

  private static int port(Args a, int dflt) {
    int port = a.getInt("port", dflt);
    if (port != dflt && (port < 0 || port > 65535)) {
      throw new Args.UsageException("--port must be in 0..65535");
    }
    return port;
  }
}
