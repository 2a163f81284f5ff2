package io.sluice.benchmarks.grpc;

import io.grpc.ManagedChannel;
import io.netty.channel.EventLoopGroup;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.rpc.BenchService;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.benchmarks.rpc.ReactorBenchClient;
import io.sluice.benchmarks.rpc.ReactorBenchServer;
import io.sluice.benchmarks.rpc.StreamRequest;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.internal.EventLoops;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Recorder;

/**
 * gRPC on the wire, one client implementation against one server implementation, both of the
 * same service {@code sluice.bench.rpc.Bench} ({@code rpc_bench.proto}): the impl named {@code
 * grpc:CLIENT-to-SERVER}, each of CLIENT and SERVER {@code sluice} or {@code grpc-java}
 * ({@code ./sluice bench --compare-grpc}).
 *
 * <ul>
 *   <li>Sluice's server: {@link GrpcServer} (h2c, default options) serving the Reactor-flavor
 *       generated server over {@link BenchService}, on one NIO event loop (as grpc-java).
 *   <li>grpc-java's server: {@link GrpcJavaBench#service()} set up as the {@code grpc-java} impl
 *       ({@link GrpcImpl}: direct executor, 1,000,000-byte window, one NIO loop).
 *   <li>Sluice's client: a {@link GrpcChannel} ({@link GrpcClientTransport}, one NIO event
 *       loop) under the generated {@link ReactorBenchClient}.
 *   <li>grpc-java's client: a channel set up as {@link GrpcImpl}'s, calls through {@link
 *       io.grpc.stub.ClientCalls} with the hand-built descriptors of {@link GrpcJavaBench}.
 * </ul>
 *
 * <p>{@code rr} keeps {@code window} unary {@code Response} calls outstanding on one connection
 * (each reply starts the next; each call timed into {@link #loadLatencies()}; failures counted in
 * {@link #loadFailures()}: grpc-java's channel reconnects, so its loop starts a new call a
 * millisecond after a failed one, Sluice's does not); {@code stream} is one unending
 * server-streaming {@code Stream} call ({@code count = 0}).
 */
public final class GrpcWireImpl implements Impl {
  /** The two sides each of CLIENT and SERVER can be. */
  public static final List<String> SIDES = List.of("sluice", "grpc-java");

  private static final String PREFIX = "grpc:";
  private static final String SLUICE_SERVER_LOOP = "sluice-grpc-server-loop";

  private final String client;
  private final String server;
  private final GrpcImpl grpcJava = new GrpcImpl();
  private final Recorder latencies = new Recorder(3);
  private final Failures failures = new Failures();

  private GrpcWireImpl(String client, String server) {
    this.client = client;
    this.server = server;
  }

  /** The impl's name: {@code grpc:CLIENT-to-SERVER}. */
  public static String name(String client, String server) {
    return PREFIX + client + "-to-" + server;
  }

  /** The impl {@code grpc:CLIENT-to-SERVER}; null for any other name. */
  public static GrpcWireImpl parse(String name) {
    if (!name.startsWith(PREFIX)) {
      return null;
    }
    String[] cs = name.substring(PREFIX.length()).split("-to-", -1);
    if (cs.length != 2 || !SIDES.contains(cs[0]) || !SIDES.contains(cs[1])) {
      return null;
    }
    return new GrpcWireImpl(cs[0], cs[1]);
  }

  @Override
  public String serverLoopPrefix() {
    return server.equals("sluice") ? SLUICE_SERVER_LOOP : grpcJava.serverLoopPrefix();
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    checkInteraction(interaction);
    if (server.equals("grpc-java")) {
      return grpcJava.serve(GrpcJavaBench::service);
    }
    ServiceRegistry registry =
        ServiceRegistry.builder().add(new ReactorBenchServer(new BenchService())).build();
    return GrpcServer.create("127.0.0.1", 0)
        .withServices(registry)
        .withEventLoopGroup(EventLoops.newGroup(1, SLUICE_SERVER_LOOP, IoMode.NIO))
        .start()
        .port();
  }

  @Override
  public Recorder loadLatencies() {
    return latencies;
  }

  @Override
  public long loadFailures() {
    return failures.count();
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received)
      throws Exception {
    checkInteraction(interaction);
    if (interaction.equals("rr")) {
      unary(port, size, window, received, latencies::recordValue);
    } else if (client.equals("grpc-java")) {
      GrpcJavaBench.stream(grpcJava.connect(port), size, received);
    } else {
      sluiceClient(port).stream(StreamRequest.newBuilder().setSize(size).build())
          .subscribe(p -> received.increment(), e -> failed(e));
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception {
    if (!interaction.equals("rr")) {
      throw new IllegalArgumentException(
          interaction + " is not measured for " + name(client, server));
    }
    unary(port, size, concurrency, new Counter(), sink);
  }

  private void unary(int port, int size, int window, Counter received, LatencySink sink)
      throws Exception {
    Payload request = GrpcJavaBench.payload(size);
    if (client.equals("grpc-java")) {
      ManagedChannel channel = grpcJava.connect(port);
      GrpcJavaBench.unaryLoop(channel, request, window, received, sink, failures);
      return;
    }
    GrpcChannel channel = connectSluice(port);
    ReactorBenchClient bench = new ReactorBenchClient(new ReactorRequester(channel));
    channel.executor().execute(() -> {
      for (int i = 0; i < window; i++) {
        new SluiceUnary(bench, request, received, sink, failures).next();
      }
    });
  }

  private static GrpcChannel connectSluice(int port) throws Exception {
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-grpc-client-loop", IoMode.NIO);
    return GrpcClientTransport.create("127.0.0.1", port)
        .withEventLoopGroup(loop)
        .connect()
        .get(60, TimeUnit.SECONDS); // hang guard
  }

  private static ReactorBenchClient sluiceClient(int port) throws Exception {
    return new ReactorBenchClient(new ReactorRequester(connectSluice(port)));
  }

  private static void checkInteraction(String interaction) {
    if (!interaction.equals("rr") && !interaction.equals("stream")) {
      throw new IllegalArgumentException("gRPC wire impls run rr and stream, not " + interaction);
    }
  }

  private static void failed(Throwable cause) {
    System.err.println("call failed: " + cause);
  }

  /** One unary call outstanding through the generated Reactor client; its reply starts the next. */
  private static final class SluiceUnary {
    private final ReactorBenchClient bench;
    private final Payload request;
    private final Counter received;
    private final LatencySink sink;
    private final Failures failures;
    private long started;

    SluiceUnary(ReactorBenchClient bench, Payload request, Counter received, LatencySink sink,
        Failures failures) {
      this.bench = bench;
      this.request = request;
      this.received = received;
      this.sink = sink;
      this.failures = failures;
    }

    void next() {
      started = System.nanoTime();
      bench.response(request).subscribe(r -> received.increment(), this::failed, this::done);
    }

    /** Counted; no next call: a GrpcChannel does not reconnect, later calls would fail at once. */
    private void failed(Throwable cause) {
      failures.failed(cause);
    }

    private void done() {
      sink.record(System.nanoTime() - started);
      next();
    }
  }
}
