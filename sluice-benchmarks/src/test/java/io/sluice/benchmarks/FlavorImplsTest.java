package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each flavor impl and sluice-rpc in real server and client JVMs (as {@code ./sluice bench} runs
 * them), a stream run and an rr run (two clients in turn against one server process), each a
 * smoke run ({@link Orchestrator#smoke}: it ends at its first 100 ms interval that counted
 * messages): asserts only that messages flowed and a RESULT line came out. No timing is asserted.
 */
class FlavorImplsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "sluice-reactor", "sluice-futures", "sluice-rxjava", "sluice-mutiny", "sluice-grpc-stub",
        "sluice-rpc", "sluice-rpc+observed", "sluice-virtualthreads", "sluice-virtualthreads-eventloop",
        "sluice+resume"
      })
  @Timeout(120) // hang guard only
  void streamAndRequestResponseMoveMessages(String impl) throws Exception {
    if (impl.startsWith("sluice-virtualthreads")) {
      Assumptions.assumeTrue(BenchMain.virtualThreadsAvailable(), "JDK 21+ build");
    }
    if (impl.equals("sluice-virtualthreads-eventloop")) {
      Assumptions.assumeTrue(BenchMain.eventLoopVirtualThreadsAvailable(), "JDK 24+");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<Orchestrator.Result> runs;
    // One server process for both runs (a new client each): a server answers both alike. Each
    // run's count is its own client's (MARK ... REPORT), so the rr run cannot count the stream's
    // messages. For sluice+resume the stream client is ended (SIGTERM) without a graceful close:
    // its session stays on the server, detached, for the session timeout (60 s), its stream paused
    // once the store holds half of its 4 MiB; the rr client makes a session of its own (a fresh
    // token) beside it, within the server's 512 MiB budget for all stores. That is a server's
    // ordinary state (a new client while an old one may still come back), not a shortcut: an rr
    // client that could not make its session beside a detached one would fail here.
    try (Orchestrator o = Orchestrator.smoke(new PrintStream(out, true, StandardCharsets.UTF_8))) {
      runs = o.throughputs(impl, 8, 0, 1,
          List.of(new Orchestrator.Load("stream", 512), new Orchestrator.Load("rr", 64)));
    }
    Orchestrator.Result stream = runs.get(0);
    Orchestrator.Result rr = runs.get(1);
    assertThat(stream.median()).as(impl + " stream").isPositive();
    assertThat(rr.median()).as(impl + " rr").isPositive();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("RESULT impl=" + impl + " interaction=stream size=8 msgs_per_sec=")
        .contains("RESULT impl=" + impl + " interaction=rr size=8 msgs_per_sec=");
  }

  /**
   * Each transport of --compare-transports that runs in this JVM's build moves messages: stream
   * and rr against one server process (a new client each, as above), both at 140 B, the larger of
   * the comparison's two sizes (a size is only the payload length the children are given; 8 B
   * streams run above for every flavor over TCP). A server per run cost a JVM start each.
   */
  @ParameterizedTest
  @ValueSource(strings = {"sluice@tcp/nio", "sluice@uds/nio", "sluice@ws/nio", "sluice@tcp/nio+tls"})
  @Timeout(120) // hang guard only
  void everyTransportMovesMessages(String impl) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<Orchestrator.Result> runs;
    try (Orchestrator o = Orchestrator.smoke(new PrintStream(out, true, StandardCharsets.UTF_8))) {
      runs = o.throughputs(impl, 140, 0, 1,
          List.of(new Orchestrator.Load("stream", 512), new Orchestrator.Load("rr", 64)));
    }
    assertThat(runs.get(0).median()).as(impl + " stream").isPositive();
    assertThat(runs.get(1).median()).as(impl + " rr").isPositive();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("RESULT impl=" + impl + " interaction=stream size=140 msgs_per_sec=")
        .contains("RESULT impl=" + impl + " interaction=rr size=140 msgs_per_sec=");
  }

  @Test
  void compareFlavorsRunsEveryFlavorAndRpcAt128BytesBesideGrpcJava() {
    assertThat(BenchMain.flavorCases())
        .containsOnlyKeys("stream 8", "rr 8", "stream 128", "rr 128");
    assertThat(BenchMain.flavorCases().get("rr 8"))
        .contains("sluice", "sluice-reactor", "sluice-futures", "sluice-rxjava", "sluice-mutiny",
            "sluice-grpc-stub", "sluice-rpc", "grpc-java");
    assertThat(BenchMain.flavorCases().get("stream 128"))
        .containsExactly("sluice", "sluice-rpc", "grpc-java");
  }
}
