package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.benchmarks.LatencyTable.Plan;
import io.sluice.benchmarks.LatencyTable.Row;
import io.sluice.benchmarks.LatencyTable.Target;
import io.sluice.benchmarks.grpc.GrpcImpl;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.ChildMain;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.harness.StreamTexts;
import io.sluice.benchmarks.sluice.BenchTransports;
import io.sluice.benchmarks.sluice.SluiceImpl;
import io.sluice.transport.netty.IoMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./sluice bench --latency}: what its command lines plan, its texts, the percentiles and the
 * lines it prints (no timing), and one real two-process case each for Sluice and grpc-java.
 */
class LatencyTableTest {

  private static Plan plan(String... argv) {
    return LatencyTable.plan(Args.parse(argv, 0, BenchMain.OPTIONS, BenchMain.FLAGS));
  }

  private static String engine() {
    return IoMode.AUTO.resolve().label();
  }

  @Test
  void latencyAloneIsTheStreamTableOverTcp() {
    Plan p = plan("--latency");
    assertThat(p.compare()).isFalse();
    assertThat(p.targets()).containsExactly(new Target("tcp", "sluice@tcp/" + engine()));
    assertThat(plan("--latency", "--transport", "ws", "--io", "nio", "--tls").targets())
        .containsExactly(new Target("ws+tls", "sluice@ws/nio+tls"));
    assertThat(plan("--latency", "--transport", "uds", "--seconds", "3", "--warmup", "0").targets())
        .containsExactly(new Target("uds", "sluice@uds/" + engine()));
  }

  @Test
  void compareTransportsRunsEveryTransportAndGrpcJava() {
    Plan p = plan("--latency", "--compare-transports", "--io", "nio");
    assertThat(p.compare()).isTrue();
    assertThat(p.targets())
        .startsWith(
            new Target("tcp", "sluice@tcp/nio"),
            new Target("uds", "sluice@uds/nio"),
            new Target("ws", "sluice@ws/nio"))
        .endsWith(new Target("grpc-java", "grpc-java"));
    assertThat(p.engines()).isEqualTo("Sluice on nio, grpc-java on nio");
    // Every transport of the registry, whatever it holds, and grpc-java last.
    List<Target> auto = plan("--latency", "--compare-transports").targets();
    assertThat(auto).hasSize(BenchTransports.ALL.size() + 1);
    assertThat(auto.get(auto.size() - 1).transport()).isEqualTo("grpc-java");
    for (Target t : auto) {
      assertThat(BenchMain.impl(t.impl())).as(t.impl()).isNotNull();
    }
  }

  @Test
  void thePerImplLatencyModeIsUnchanged() {
    assertThat(plan("--latency", "--impl", "sluice")).isNull();
    assertThat(plan("--latency", "--compare")).isNull();
    assertThat(plan("--latency", "--compare-flavors", "--size", "128")).isNull();
  }

  @Test
  void badCombinationsAreUsageErrors() {
    assertThatThrownBy(() -> plan("--latency", "--transport", "nope"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessage("--transport is one of " + BenchTransports.names() + ", got 'nope'");
    assertThatThrownBy(() -> plan("--latency", "--compare-transports", "--transport", "tcp"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("no --transport");
    assertThatThrownBy(() -> plan("--latency", "--compare-transports", "--tls"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("without TLS");
    assertThatThrownBy(() -> plan("--latency", "--compare-transports", "--compare"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("takes no --impl, --compare or --compare-flavors");
    assertThatThrownBy(() -> plan("--latency", "--impl", "sluice", "--transport", "ws"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--impl sluice@ws/nio");
    for (String option : List.of("--size", "--interaction", "--window")) {
      assertThatThrownBy(() -> plan("--latency", option, "8"))
          .isInstanceOf(Args.UsageException.class)
          .hasMessageStartingWith("--latency streams fixed texts: no " + option);
    }
    assertThatThrownBy(() -> plan("--latency", "--io", "kqueue"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--io: unknown I/O mode 'kqueue'");
  }

  @Test
  void http2TransportsAreNamedButNotBuiltYet() throws Exception {
    // Both HTTP/2 transports of issue 21 are built now; the loops below guard any planned later.
    assertThat(BenchTransports.names()).contains("h2", "ws-h2");
    for (String name : BenchTransports.NOT_BUILT) {
      assertThatThrownBy(() -> plan("--latency", "--transport", name))
          .isInstanceOf(BenchTransports.NotBuiltException.class)
          .hasMessage("transport " + name + " is not built yet");
      assertThatThrownBy(() -> SluiceImpl.parse("sluice@" + name + "/nio"))
          .isInstanceOf(BenchTransports.NotBuiltException.class);
    }
    for (String name : BenchTransports.NOT_BUILT) {
      for (String[] argv :
          List.of(
              new String[] {"bench", "--latency", "--transport", name},
              new String[] {"bench", "--latency", "--transport", name, "--tls"},
              new String[] {"bench", "--transport", name},
              new String[] {"bench", "--impl", "sluice@" + name})) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(
                BenchMain.run(
                    argv,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)))
            .as(String.join(" ", argv))
            .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
            .isEqualTo("sluice bench: transport " + name + " is not built yet");
        if (argv[1].equals("--latency")) { // refused before the run's first line
          assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        }
      }
    }
  }

  @Test
  void theRegistryIsWhatImplNamesAccept() {
    assertThat(BenchTransports.names()).startsWith("tcp", "uds", "ws").doesNotHaveDuplicates();
    for (String planned : BenchTransports.NOT_BUILT) {
      assertThat(BenchTransports.names()).doesNotContain(planned);
    }
    assertThat(SluiceImpl.TRANSPORTS).isEqualTo(BenchTransports.names());
    assertThat(BenchTransports.find("nope")).isNull();
    for (String name : BenchTransports.names()) {
      assertThat(SluiceImpl.parse("sluice@" + name + "/nio+tls")).as(name).isNotNull();
    }
    assertThat(GrpcImpl.parse("grpc-java")).isNotNull();
    assertThat(GrpcImpl.parse(GrpcImpl.EPOLL)).isNotNull();
    assertThat(GrpcImpl.parse("grpc-java/kqueue")).isNull();
  }

  @Test
  void theTextsAreFixedPrintableAndAtMostAHundredCharacters() {
    List<String> texts = StreamTexts.texts();
    assertThat(texts).hasSize(24).hasSize(StreamTexts.COUNT);
    for (String t : texts) {
      assertThat(t.length()).isBetween(1, StreamTexts.MAX_CHARS);
      assertThat(t.chars()).allMatch(c -> c >= 0x20 && c <= 0x7e);
    }
    // java.util.Random's sequence is specified: these are the texts of every run on every JDK.
    assertThat(texts.stream().mapToInt(String::length).sum()).isEqualTo(1444);
    assertThat(texts.get(0)).startsWith(")*wt:o1AI4Zqo[tJ]").hasSize(79);
    assertThat(String.join("\n", texts).hashCode()).isEqualTo(-851374442);
  }

  /** Records 1..1000 µs once each: the percentiles are those values, within HdrHistogram's 0.1 %. */
  @Test
  void percentilesOfRecordedNanos() {
    Histogram h = new Histogram(3);
    for (int us = 1000; us >= 1; us--) { // order does not matter
      h.recordValue(us * 1000L);
    }
    Orchestrator.Latency l = Orchestrator.Latency.parse(ChildMain.latencyLine(h, 4));
    assertThat(l.p50Micros()).isCloseTo(500, within(0.6));
    assertThat(l.p95Micros()).isCloseTo(950, within(1.1));
    assertThat(l.p99Micros()).isCloseTo(990, within(1.1));
    assertThat(l.opsPerSecond()).isEqualTo(250);

    Histogram skewed = new Histogram(3);
    skewed.recordValueWithCount(100_000, 990); // 990 streams at 100 µs
    skewed.recordValueWithCount(5_000_000, 10); // and 10 at 5 ms
    Orchestrator.Latency s = Orchestrator.Latency.parse(ChildMain.latencyLine(skewed, 1));
    assertThat(s.p50Micros()).isCloseTo(100, within(0.1));
    assertThat(s.p99Micros()).isCloseTo(100, within(0.1));
    assertThat(s.opsPerSecond()).isEqualTo(1000);
    assertThat(ChildMain.latencyLine(skewed, 1))
        .isEqualTo("LATENCY p50_us=100.0 p95_us=100.0 p99_us=100.0 ops_per_sec=1000");
  }

  @Test
  void aLatencyLineMissingAFieldIsAnError() {
    assertThatThrownBy(() -> Orchestrator.Latency.parse("LATENCY p50_us=1.0 p95_us=2.0 ops_per_sec=3"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a LATENCY line");
  }

  @Test
  void resultLineHasTheIssuesFormat() {
    Row r = new Row("tcp", 4, new Orchestrator.Latency(126.04, 147.0, 1164.55, 7813, 31.25, 9.96));
    assertThat(LatencyTable.resultLine(r))
        .isEqualTo("RESULT latency transport=tcp interaction=stream concurrency=4 p50_us=126.0"
            + " p95_us=147.0 p99_us=1164.6 streams_per_sec=7813 server_cpu_us_per_stream=31.3"
            + " client_cpu_us_per_stream=10.0")
        .matches("RESULT latency transport=\\S+ interaction=stream concurrency=\\d+"
            + " p50_us=[0-9.]+ p95_us=[0-9.]+ p99_us=[0-9.]+ streams_per_sec=\\d+"
            + " server_cpu_us_per_stream=[0-9.]+ client_cpu_us_per_stream=[0-9.]+");
  }

  @Test
  void theCpuPerOperationOfBothSidesIsReadWhenTheLineHasIt() {
    Orchestrator.Latency l = Orchestrator.Latency.parse(
        "LATENCY p50_us=1.0 p95_us=2.0 p99_us=3.0 ops_per_sec=4 cpu_ns_per_op=1500 server_cpu_ns_per_op=2500");
    assertThat(l.clientCpuMicros()).isEqualTo(1.5);
    assertThat(l.serverCpuMicros()).isEqualTo(2.5);
    Orchestrator.Latency none = Orchestrator.Latency.parse("LATENCY p50_us=1.0 p95_us=2.0 p99_us=3.0 ops_per_sec=4");
    assertThat(none.clientCpuMicros()).isNaN();
    assertThat(none.serverCpuMicros()).isNaN();
  }

  @Test
  void tableRatiosAreAgainstGrpcJavaAtTheSameConcurrency() {
    List<Row> rows =
        List.of(
            new Row("tcp", 1, new Orchestrator.Latency(50, 60, 70, 20_000, 12.34, 5)),
            new Row("tcp", 4, new Orchestrator.Latency(80, 90, 100, 45_000)),
            new Row("grpc-java", 1, new Orchestrator.Latency(150, 160, 170, 5_000)),
            new Row("grpc-java", 4, new Orchestrator.Latency(250, 260, 270, 15_000)));
    assertThat(LatencyTable.table(rows))
        .isEqualTo(
            "| transport | concurrency | p50 µs | p95 µs | p99 µs | streams/s | vs grpc-java"
                + " | server CPU µs/stream | client CPU µs/stream |\n"
                + "|---|---|---|---|---|---|---|---|---|\n"
                + "| tcp | 1 | 50.0 | 60.0 | 70.0 | 20,000 | 4.00x | 12.3 | 5.0 |\n"
                + "| tcp | 4 | 80.0 | 90.0 | 100.0 | 45,000 | 3.00x | n/a | n/a |\n"
                + "| grpc-java | 1 | 150.0 | 160.0 | 170.0 | 5,000 | 1.00x | n/a | n/a |\n"
                + "| grpc-java | 4 | 250.0 | 260.0 | 270.0 | 15,000 | 1.00x | n/a | n/a |\n");
    assertThat(LatencyTable.table(rows.subList(0, 1))).endsWith("| 20,000 | n/a | 12.3 | 5.0 |\n");
  }

  /**
   * Real server and client JVMs, Sluice then grpc-java: streams completed, each with all 24 texts
   * (a client whose stream brings another number exits, which fails this test). Smoke runs: the
   * client measures its first 100 ms interval in which a stream completed (the intervals before
   * it are start-up, neither warm-up nor measured). Each side's CPU per stream is reported; the
   * process CPU clock moves in 10 ms ticks on Linux, so one side of one 100 ms interval may read 0
   * (seen for the WebSocket server in a few hundred runs), but not every side of every impl.
   */
  @Test
  @Timeout(300) // hang guard only: six JVMs one after another, 16-55 s a pair on a loaded machine
  void textStreamsRunEndToEndForSluiceAndGrpcJava() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    double cpu = 0;
    try (Orchestrator o = Orchestrator.smoke(new PrintStream(out, true, StandardCharsets.UTF_8))) {
      for (String impl : List.of("sluice@tcp/nio", "sluice@ws/nio", "grpc-java")) {
        Orchestrator.Latency l = o.latencyStats(impl, Spec.TEXTS24, 0, 2, 0, 1);
        assertThat(l.opsPerSecond()).as(impl).isPositive();
        assertThat(l.p50Micros()).as(impl).isPositive().isLessThanOrEqualTo(l.p99Micros());
        // Both processes reported their CPU (NaN: the field is missing).
        assertThat(l.serverCpuMicros()).as(impl).isNotNaN().isGreaterThanOrEqualTo(0);
        assertThat(l.clientCpuMicros()).as(impl).isNotNaN().isGreaterThanOrEqualTo(0);
        cpu += l.serverCpuMicros() + l.clientCpuMicros();
      }
    }
    assertThat(cpu).as("CPU per stream of every side of every impl: not all 0\n%s", out).isPositive();
  }
}
