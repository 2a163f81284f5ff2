package io.sluice.benchmarks.harness;

import java.util.List;

/** What one benchmark run measures; shared by the orchestrator and the child processes. */
public final class Spec {
  /** The side-by-side peers: {@code --compare} runs these. */
  public static final List<String> PEERS = List.of("sluice", "grpc-java", "rsocket-java", "spring-rsocket");

  /**
   * Sluice through each API flavor (end to end: server and client of the same flavor) and through
   * its protobuf RPC, beside the raw core SPI ({@code sluice}): {@code --compare-flavors} runs these.
   */
  public static final List<String> FLAVORS =
      List.of(
          "sluice",
          "sluice-reactor",
          "sluice-futures",
          "sluice-rxjava",
          "sluice-mutiny",
          "sluice-grpc-stub",
          "sluice-rpc");

  /** The implementations the harness knows. */
  public static final List<String> IMPLS =
      List.of(
          "sluice",
          "sluice+resume",
          "grpc-java",
          "rsocket-java",
          "rsocket-java-ws",
          "spring-rsocket",
          "sluice-reactor",
          "sluice-futures",
          "sluice-rxjava",
          "sluice-mutiny",
          "sluice-grpc-stub",
          "sluice-rpc",
          "sluice-rpc+observed",
          "sluice-virtualthreads",
          "sluice-virtualthreads-eventloop");

  /** The impls that run in the rsocket-java / Spring RSocket peer jar (their own JVM and netty). */
  public static final List<String> PEER_JAR_IMPLS =
      List.of("rsocket-java", "rsocket-java-ws", "spring-rsocket");

  /** Throughput interactions; {@code stream24} (a request-stream of 24) is for latency mode only. */
  public static final List<String> INTERACTIONS = List.of("fnf", "rr", "stream", "channel");

  public static final List<Integer> SIZES = List.of(4, 8, 128, 140, 512);

  /** The messages a latency-mode request-stream carries. */
  public static final int STREAM24 = 24;

  /**
   * The interaction of the latency table ({@code ./sluice bench --latency}): request-streams of the
   * {@link StreamTexts} (24 texts of up to 100 characters), which the server, started with this
   * interaction, answers every request-stream with. Sluice (any transport) and grpc-java run it.
   */
  public static final String TEXTS24 = "texts24";

  private Spec() {}

  /** Each peer at its own best window: gRPC unary peaks near 64 calls in flight, the others at 512. */
  public static int defaultWindow(String impl, String interaction) {
    // grpc:CLIENT-to-SERVER (gRPC on the wire, --compare-grpc) calls as grpc-java does.
    return (impl.equals("grpc-java") || impl.startsWith("grpc:")) && interaction.equals("rr")
        ? 64
        : 512;
  }

  /** Checks an interaction name; {@code latency} allows {@code stream24}. */
  public static void checkInteraction(String interaction, boolean latency) {
    if (latency ? !(interaction.equals("rr") || interaction.equals("stream24"))
        : !INTERACTIONS.contains(interaction)) {
      throw new Args.UsageException(
          "--interaction must be one of "
              + (latency ? "[rr, stream24]" : INTERACTIONS.toString())
              + ", got '" + interaction + "'");
    }
  }
}
