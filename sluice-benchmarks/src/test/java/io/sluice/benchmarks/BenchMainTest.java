package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.many.ManyOptions;
import io.sluice.benchmarks.scale.ScaleBench;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The front door's argument checks, the median, and one real two-process run per interaction kind. */
class BenchMainTest {

  private static int run(ByteArrayOutputStream err, String... argv) throws Exception {
    return BenchMain.run(
        argv,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void badArgumentsAreUsageErrors() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err, "bench", "--impl", "nope")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--impl must be one of");
    err.reset();
    assertThat(run(err, "bench", "--interaction", "stream24")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interaction must be one of");
    err.reset();
    assertThat(run(err, "bench", "--size", "-1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--size must be in");
    err.reset();
    assertThat(run(err, "bench", "--frobnicate")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option --frobnicate");
    err.reset();
    assertThat(run(err, "bench", "--compare", "--compare-flavors")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("exclude each other");
    err.reset();
    assertThat(run(err, "bench", "--interleave")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interleave goes with --compare-flavors");
    err.reset();
    assertThat(run(err, "bench", "--pair", "sluice")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--pair takes two impls");
    err.reset();
    assertThat(run(err, "bench", "--pair", "sluice,nope")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--impl must be one of");
    err.reset();
    assertThat(run(err, "bench", "--pair", "sluice,sluice-reactor", "--rounds", "0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rounds must be in");
    err.reset();
    assertThat(run(err, "bench", "--pair", "sluice,sluice", "--interaction", "texts24", "--size", "8")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("texts24 streams fixed texts: no --size");
    err.reset();
    assertThat(run(err, "bench", "--impl", "grpc:sluice-to-nope")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--impl must be one of");
    err.reset();
    assertThat(run(err, "bench", "--impl", "grpc:sluice-to-grpc-java", "--interaction", "fnf"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("runs --interaction rr or stream");
  }

  /** {@code --connections} picks its mode by {@code --scale} being there or not, and says so. */
  @Test
  void connectionsWithAndWithoutScaleAreTwoModesWithClearErrors() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err, "bench", "--scale", "--connections", "10", "--concurrency", "10"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--concurrency belongs to the many-connections mode");
    err.reset();
    assertThat(run(err, "bench", "--connections", "16", "--streams-per-connection", "3"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--streams-per-connection goes with --scale");
    err.reset();
    assertThat(run(err, "bench", "--connections", "16", "--rate", "3")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rate does not go with --connections");
    err.reset();
    assertThat(run(err, "bench", "--compare", "--connections", "16")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--compare does not go with --connections");
    err.reset();
    assertThat(run(err, "bench", "--response-size", "16")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("go with --connections C");
    err.reset();
    assertThat(run(err, "bench", "--connections", "16", "--concurrency", "4")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("is less than --connections 16");
    err.reset();
    assertThat(run(err, "bench", "--scale")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--scale needs --connections C");
  }

  /**
   * The many-connections mode in a tiny configuration (2 connections, 4 calls in flight, 1 s of
   * warm-up, 1 s measured): each impl's server and client start, calls flow with answers of the
   * asked size, and every RESULT line and the table come out. Rates are not checked.
   */
  @Test
  @Timeout(300) // hang guard only: 3 runs of two JVMs each
  void manyConnectionsPrintsAResultLinePerImplAndTheTable() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = BenchMain.run(
        new String[] {"bench", "--connections", "2", "--concurrency", "4", "--response-size",
            "3000", "--warmup", "1", "--seconds", "1"},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
    List<String> results =
        printed.lines().filter(l -> l.startsWith("RESULT many-connections ")).toList();
    assertThat(results).hasSize(3);
    for (String impl : ManyOptions.IMPLS) {
      String prefix = "RESULT many-connections impl=" + impl
          + " connections=2 concurrency=4 response_size=3000 qps=";
      assertThat(results).filteredOn(l -> l.startsWith(prefix)).singleElement()
          .satisfies(l -> assertThat(l).doesNotContain("qps=0 ").contains(" failed_calls=0 ",
              " p999_us=", " server_cpu_us_per_call="));
    }
    assertThat(printed).contains("| 2 / 4 / 3000 B | ");
  }

  /**
   * {@code --compare-grpc} as a smoke run (no warm-up, one 100 ms count per run, one server JVM
   * per server side for all six runs; one size; pinned only where taskset and two CPUs are): every
   * run starts, and every RESULT line and the table come out. Their values are not checked (a
   * shared machine decides them). One size, not the default two (8 and 128 B): a size is only the
   * payload length the children are given, the same code at any size, and each size costs six
   * more client JVMs; {@link #compareGrpcDefaultsToBothSizesAndBothInteractions} checks that both
   * are in the default plan.
   */
  @Test
  @Timeout(600) // hang guard only: 6 client JVMs, 2 server JVMs
  void compareGrpcPrintsEveryResultLineAndTheTable() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = BenchMain.run(
        new String[] {"bench", "--compare-grpc", "--size", "128", "--smoke"},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
    List<String> results = printed.lines().filter(l -> l.startsWith("RESULT compare-grpc ")).toList();
    assertThat(results).hasSize(8);
    for (String side : List.of("server", "client")) {
      for (String impl : List.of("sluice", "grpc-java")) {
        for (String interaction : List.of("unary", "stream")) {
          String prefix = "RESULT compare-grpc side=" + side + " impl=" + impl + " interaction="
              + interaction + " size=128 calls_per_sec=";
          assertThat(results).as(prefix).filteredOn(l -> l.startsWith(prefix)).singleElement()
              .satisfies(l -> assertThat(l).contains(" server_cpu_us_per_call=", " p50_us=",
                  " p99_us=", " concurrency=" + (interaction.equals("unary") ? 64 : 1)));
        }
      }
    }
    assertThat(printed)
        .contains("; smoke run: no warm-up, one 100 ms measured")
        .contains("| case | grpc-java client → Sluice server |")
        .contains("| unary 128 B |", "| stream 128 B |")
        .doesNotContain("| unary 8 B |", "| stream 8 B |");
  }

  /**
   * A smoke run's server serves the later runs that would start the same server: gRPC on the wire
   * one per server side, any other impl one per interaction and size.
   */
  @Test
  void smokeRunsShareAServerOnlyWhereItServesAlike() {
    String grpcJava = Orchestrator.serverKey("grpc:grpc-java-to-grpc-java", "rr", 8);
    assertThat(Orchestrator.serverKey("grpc:sluice-to-grpc-java", "stream", 128)).isEqualTo(grpcJava);
    assertThat(Orchestrator.serverKey("grpc:grpc-java-to-sluice", "rr", 8))
        .isEqualTo(Orchestrator.serverKey("grpc:sluice-to-sluice", "stream", 128))
        .isNotEqualTo(grpcJava);
    assertThat(Orchestrator.serverKey("sluice", "rr", 8))
        .isNotEqualTo(Orchestrator.serverKey("sluice", "stream", 8))
        .isNotEqualTo(Orchestrator.serverKey("sluice", "rr", 128))
        .isNotEqualTo(Orchestrator.serverKey("sluice-reactor", "rr", 8))
        .isEqualTo(Orchestrator.serverKey("sluice", "rr", 8));
  }

  @Test
  void smokeTakesNoTimesAndNoModeThatIsNotARunOfTheOrchestrator() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err, "bench", "--smoke", "--seconds", "3")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no --seconds or --warmup");
    err.reset();
    assertThat(run(err, "bench", "--compare-grpc", "--smoke", "--warmup", "0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no --seconds or --warmup");
    for (String mode : List.of("--balancer", "--h2load", "--vt-costs", "--interleave")) {
      err.reset();
      assertThat(run(err, "bench", "--smoke", mode)).as(mode).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).as(mode)
          .contains("--smoke goes with the throughput and latency runs");
    }
    err.reset();
    assertThat(run(err, "bench", "--smoke", "--pair", "sluice,sluice-reactor")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--smoke goes with the throughput and latency runs");
  }

  @Test
  void compareGrpcDefaultsToBothSizesAndBothInteractions() {
    assertThat(GrpcComparison.SIZES).containsExactly(8, 128);
    assertThat(GrpcComparison.INTERACTIONS).containsExactly("rr", "stream");
  }

  @Test
  void grpcWireImplsAreNamedClientToServer() {
    assertThat(GrpcComparison.runs())
        .containsExactly("grpc:grpc-java-to-sluice", "grpc:grpc-java-to-grpc-java",
            "grpc:sluice-to-grpc-java");
    for (String name : GrpcComparison.runs()) {
      assertThat(io.sluice.benchmarks.grpc.GrpcWireImpl.parse(name)).as(name).isNotNull();
    }
    for (String bad : List.of("grpc:sluice", "grpc:a-to-b", "sluice-to-sluice", "grpc:sluice-to-")) {
      assertThat(io.sluice.benchmarks.grpc.GrpcWireImpl.parse(bad)).as(bad).isNull();
    }
    assertThat(GrpcComparison.verdict(1.25, 1.2, true)).isEqualTo("1.25x met");
    assertThat(GrpcComparison.verdict(0.6, 0.5, false)).isEqualTo("0.60x missed");
    assertThat(GrpcComparison.verdict(Double.NaN, 0.5, false)).isEqualTo("n/a");
    Orchestrator.Result ok = new Orchestrator.Result(
        "grpc:grpc-java-to-grpc-java", "rr", 8, 64, 100, 1, 1, 1, 1, 1, 0);
    Orchestrator.Result failing = new Orchestrator.Result(
        "grpc:grpc-java-to-sluice", "rr", 8, 64, 100, 1, 1, 1, 1, 1, 7);
    assertThat(GrpcComparison.valid("1.25x met", ok, ok)).isEqualTo("1.25x met");
    assertThat(GrpcComparison.valid("1.25x met", failing, ok))
        .isEqualTo("1.25x (7 calls failed: not valid)");
  }

  /** What bench-usage.txt lists is what the parser takes, and the impls are the harness's. */
  @Test
  void helpListsExactlyTheOptionsAndImplsTheParserTakes() throws Exception {
    Set<String> listed = new TreeSet<>();
    Matcher m = Pattern.compile("--([a-z][a-z0-9-]*)").matcher(BenchMain.USAGE);
    while (m.find()) {
      listed.add(m.group(1));
    }
    Set<String> accepted = new TreeSet<>(BenchMain.OPTIONS);
    accepted.addAll(BenchMain.FLAGS);
    accepted.addAll(ScaleBench.optionNames());
    accepted.addAll(ManyOptions.OPTIONS);
    accepted.add("help");
    assertThat(listed).isEqualTo(accepted);

    String impls = BenchMain.USAGE.replaceAll("(?s).*\\n  --impl +(.*?)\\(default sluice\\).*", "$1");
    List<String> listedImpls = new ArrayList<>();
    for (String alternative : impls.split("\\|")) {
      listedImpls.add(alternative.strip().split("\\s+")[0]);
    }
    assertThat(listedImpls).isEqualTo(Spec.IMPLS);
    String interactions =
        BenchMain.USAGE.replaceAll("(?s).*\\n  --interaction +(.*?) \\(default stream\\).*", "$1");
    assertThat(List.of(interactions.split(" \\| "))).isEqualTo(Spec.INTERACTIONS);
  }

  @Test
  void helpExitsZeroForBenchAndJmhWithoutRunningAnything() throws Exception {
    for (String[] argv :
        List.of(
            new String[] {"bench", "--help"},
            new String[] {"bench", "--impl", "nope", "--help"},
            new String[] {"--help"})) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(BenchMain.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8), System.err))
          .isZero();
      assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo(BenchMain.USAGE);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(
            BenchMain.run(
                new String[] {"jmh", "--help"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err))
        .isZero();
    assertThat(out.toString(StandardCharsets.UTF_8).strip())
        .isEqualTo(BenchMain.JMH_USAGE)
        .startsWith("usage: ./sluice jmh");
  }

  @Test
  void quantilesInterpolateAndIgnoreNaN() {
    double[] v = {4, Double.NaN, 1, 3, 2};
    assertThat(Orchestrator.quantile(v, 0.5)).isEqualTo(2.5);
    assertThat(Orchestrator.quantile(v, 0.25)).isEqualTo(1.75);
    assertThat(Orchestrator.quantile(v, 0)).isEqualTo(1);
    assertThat(Orchestrator.quantile(v, 1)).isEqualTo(4);
    assertThat(Orchestrator.quantile(new double[] {Double.NaN}, 0.5)).isNaN();
    Orchestrator.Pair p =
        new Orchestrator.Pair("a", "b", "stream", 8, new double[] {10, 20, 0}, new double[] {9, 30, 5});
    assertThat(p.ratios()).containsExactly(0.9, 1.5, Double.NaN);
    assertThat(p.ratioQuantile(0.5)).isEqualTo(1.2);
    assertThat(p.aMedian()).isEqualTo(10);
    assertThat(p.bMedian()).isEqualTo(9);
  }

  @Test
  void interleaveComparesEveryFlavorButReactorWithReactor() {
    List<String> expected =
        new java.util.ArrayList<>(
            List.of("sluice-futures", "sluice-rxjava", "sluice-mutiny", "sluice-grpc-stub"));
    if (Runtime.version().feature() >= 21) {
      expected.add("sluice-virtualthreads");
    }
    if (Runtime.version().feature() >= 24) {
      expected.add("sluice-virtualthreads-eventloop");
    }
    assertThat(BenchMain.interleavedFlavors()).containsExactlyElementsOf(expected);
  }

  /** The jdk21 profile compiles the virtual-threads impl whenever the build runs on JDK 21+. */
  @Test
  void virtualThreadsImplIsThereExactlyOnJdk21AndLater() throws Exception {
    assertThat(BenchMain.virtualThreadsAvailable()).isEqualTo(Runtime.version().feature() >= 21);
    if (Runtime.version().feature() < 21) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertThat(run(err, "bench", "--impl", "sluice-virtualthreads")).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).contains("needs the benchmarks built and run on JDK 21+");
    }
  }

  /**
   * Two real pairs taking turns under SIGSTOP / SIGCONT, twice with new processes: every turn of
   * both moved messages and the PAIR line came out (no warm-up: each pair's first message is
   * awaited before the turns). Needs taskset and two CPUs, as the interleaved mode itself does.
   */
  @Test
  @Timeout(180) // hang guard only
  void interleavedPairsTakeTurnsAndBothMoveMessages() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Orchestrator o = new Orchestrator(new PrintStream(out, true, StandardCharsets.UTF_8));
    Assumptions.assumeTrue(o.pinned(), "taskset and two CPUs");
    Orchestrator.Pair p = o.interleaved("sluice", "sluice-reactor", "stream", 8, 0, 2, 2, 300, 100);
    assertThat(Arrays.stream(p.aRates()).boxed()).hasSize(4).allSatisfy(r -> assertThat(r).isPositive());
    assertThat(Arrays.stream(p.bRates()).boxed()).hasSize(4).allSatisfy(r -> assertThat(r).isPositive());
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("epoch 2 round 2: sluice ")
        .contains("PAIR impl_a=sluice impl_b=sluice-reactor interaction=stream size=8 a_msgs_per_sec=");
  }

  /**
   * A pair of the latency table's case (texts24): the latency clients answer COUNT with the
   * streams they completed, so every turn of both counts streams.
   */
  @Test
  @Timeout(180) // hang guard only
  void interleavedLatencyPairsCountCompletedStreams() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Orchestrator o = new Orchestrator(new PrintStream(out, true, StandardCharsets.UTF_8));
    Assumptions.assumeTrue(o.pinned(), "taskset and two CPUs");
    Orchestrator.Pair p = o.interleaved("sluice", "sluice", "texts24", 0, 0, 1, 2, 300, 100);
    assertThat(Arrays.stream(p.aRates()).boxed()).hasSize(2).allSatisfy(r -> assertThat(r).isPositive());
    assertThat(Arrays.stream(p.bRates()).boxed()).hasSize(2).allSatisfy(r -> assertThat(r).isPositive());
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("PAIR impl_a=sluice impl_b=sluice interaction=texts24 size=0 a_msgs_per_sec=");
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(Orchestrator.median(List.of(5L, 1L, 3L))).isEqualTo(3);
    assertThat(Orchestrator.median(List.of(4L, 1L, 3L, 2L))).isEqualTo(2);
    assertThat(Orchestrator.median(List.of())).isZero();
  }

  /** Starts real server and client JVMs; asserts messages flowed and a RESULT line came out. */
  @Test
  @Timeout(120) // hang guard only
  void sluiceStreamAndRequestResponseRunEndToEnd() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<Orchestrator.Result> runs;
    // One server process, a client for each interaction in turn; smoke runs, each ended at its
    // first 100 ms that counted messages (FlavorImplsTest runs every flavor so).
    try (Orchestrator o = Orchestrator.smoke(new PrintStream(out, true, StandardCharsets.UTF_8))) {
      runs = o.throughputs("sluice", 8, 0, 1,
          List.of(new Orchestrator.Load("stream", 512), new Orchestrator.Load("rr", 64)));
    }
    Orchestrator.Result stream = runs.get(0);
    Orchestrator.Result rr = runs.get(1);
    assertThat(stream.median()).isPositive();
    assertThat(rr.median()).isPositive();
    // Bytes the server's event-loop threads allocated per message: allocation counts never go
    // down, so what can go wrong is finding no loop thread by its name prefix, which reads as 0.
    assertThat(stream.bytesPerMessage())
        .as("server loop bytes per message (0: no thread matched the server loop prefix)")
        .isPositive()
        .isFinite();
    // CPU per message of each side: each process's CPU time (getProcessCpuTime, which the kernel
    // counts in scheduler ticks), which on a busy machine may not have ticked for one side in a
    // 100 ms run (0 is a reading, NaN is not); both together did.
    assertThat(stream.serverCpuNanosPerMessage()).isNotNaN().isGreaterThanOrEqualTo(0);
    assertThat(stream.clientCpuNanosPerMessage()).isNotNaN().isGreaterThanOrEqualTo(0);
    assertThat(stream.serverCpuNanosPerMessage() + stream.clientCpuNanosPerMessage()).isPositive();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("RESULT impl=sluice interaction=stream size=8 msgs_per_sec=")
        .contains("RESULT impl=sluice interaction=rr size=8 msgs_per_sec=");
  }
}
