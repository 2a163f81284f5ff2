package io.sluice.benchmarks;

import io.sluice.benchmarks.grpc.GrpcWireImpl;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./sluice bench --compare-grpc}: gRPC on the wire, Sluice against grpc-java on both ends
 * (issue 22, "Speed"). For unary and server streaming at 8 and 128 bytes, three runs of the same
 * service ({@code sluice.bench.rpc.Bench}), each a server JVM and a client JVM: grpc-java's client
 * against Sluice's server, the same client against grpc-java's server, and Sluice's client against
 * grpc-java's server. The first two compare the servers (calls/s and the server process's CPU
 * per call), the last two the clients (calls/s). One {@code RESULT compare-grpc} line per side
 * and implementation, then a table of the ratios against the targets.
 */
final class GrpcComparison {
  /** Unary calls outstanding on the one connection. */
  static final int UNARY_CONCURRENCY = 64;

  /** Server streaming: one unending call. */
  static final int STREAMS = 1;

  static final List<String> INTERACTIONS = List.of("rr", "stream");

  static final List<Integer> SIZES = List.of(8, 128);

  private static final String SLUICE = "sluice";
  private static final String GRPC_JAVA = "grpc-java";

  private GrpcComparison() {}

  /** The three runs of one case, by impl name (client-to-server). */
  static List<String> runs() {
    return List.of(
        GrpcWireImpl.name(GRPC_JAVA, SLUICE),
        GrpcWireImpl.name(GRPC_JAVA, GRPC_JAVA),
        GrpcWireImpl.name(SLUICE, GRPC_JAVA));
  }

  /** Every case at {@code sizes} (the default {@link #SIZES}; {@code --size N} runs N only). */
  static int run(Orchestrator o, int warmup, int seconds, List<Integer> sizes, PrintStream out)
      throws Exception {
    Map<String, Map<String, Orchestrator.Result>> cases = new LinkedHashMap<>();
    for (String interaction : INTERACTIONS) {
      for (int size : sizes) {
        Map<String, Orchestrator.Result> runs = new LinkedHashMap<>();
        for (String impl : runs()) {
          out.println("## " + impl + " " + interaction + " " + size + " B");
          runs.put(impl, o.throughput(impl, interaction, size, UNARY_CONCURRENCY, warmup, seconds));
        }
        cases.put(interaction + " " + size, runs);
      }
    }
    out.println();
    List<String> table = new ArrayList<>();
    for (Map.Entry<String, Map<String, Orchestrator.Result>> c : cases.entrySet()) {
      Map<String, Orchestrator.Result> runs = c.getValue();
      Orchestrator.Result toSluice = runs.get(GrpcWireImpl.name(GRPC_JAVA, SLUICE));
      Orchestrator.Result baseline = runs.get(GrpcWireImpl.name(GRPC_JAVA, GRPC_JAVA));
      Orchestrator.Result fromSluice = runs.get(GrpcWireImpl.name(SLUICE, GRPC_JAVA));
      out.println(resultLine("server", SLUICE, toSluice));
      out.println(resultLine("server", GRPC_JAVA, baseline));
      out.println(resultLine("client", SLUICE, fromSluice));
      out.println(resultLine("client", GRPC_JAVA, baseline));
      table.add(String.format(Locale.ROOT,
          "| %s %d B | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s |",
          interaction(toSluice.interaction()), toSluice.size(),
          Orchestrator.rate(toSluice.median()), Orchestrator.rate(baseline.median()),
          valid(verdict(ratio(toSluice.median(), baseline.median()), 1.2, true), toSluice,
              baseline),
          toSluice.serverCpuNanosPerMessage() / 1000, baseline.serverCpuNanosPerMessage() / 1000,
          valid(verdict(toSluice.serverCpuNanosPerMessage() / baseline.serverCpuNanosPerMessage(),
              0.5, false), toSluice, baseline),
          Orchestrator.rate(fromSluice.median()), Orchestrator.rate(baseline.median()),
          valid(verdict(ratio(fromSluice.median(), baseline.median()), 1.2, true), fromSluice,
              baseline)));
    }
    out.println();
    out.println("| case | grpc-java client → Sluice server | → grpc-java server | calls/s ratio"
        + " (≥ 1.2x) | server CPU µs/call, Sluice | grpc-java | CPU ratio (≤ 0.5x)"
        + " | Sluice client → grpc-java server | grpc-java client → grpc-java server"
        + " | calls/s ratio (≥ 1.2x) |");
    out.println("|---|---|---|---|---|---|---|---|---|---|");
    table.forEach(out::println);
    out.println();
    out.println("unary: " + UNARY_CONCURRENCY + " calls outstanding on one connection; stream: "
        + STREAMS + " unending server-streaming call (a 'call' is one message). calls/s are medians"
        + " of the per-second counts; server CPU is the server JVM's process CPU time"
        + " (OperatingSystemMXBean#getProcessCpuTime, all threads) over the measured seconds over"
        + " the calls counted then. The grpc-java client → grpc-java server run is the baseline of"
        + " both comparisons. A ratio whose runs had failed calls is marked not valid.");
    return 0;
  }

  /** The {@code RESULT compare-grpc ...} line of one side's run. */
  static String resultLine(String side, String impl, Orchestrator.Result r) {
    return String.format(Locale.ROOT,
        "RESULT compare-grpc side=%s impl=%s interaction=%s size=%d calls_per_sec=%d"
            + " server_cpu_us_per_call=%.3f client_cpu_us_per_call=%.3f p50_us=%s p99_us=%s"
            + " failed_calls=%s concurrency=%d",
        side, impl, interaction(r.interaction()), r.size(), r.median(),
        r.serverCpuNanosPerMessage() / 1000, r.clientCpuNanosPerMessage() / 1000,
        micros(r.p50Micros()), micros(r.p99Micros()), r.failed() < 0 ? "n/a" : r.failed(),
        r.interaction().equals("rr") ? UNARY_CONCURRENCY : STREAMS);
  }

  private static String interaction(String harnessName) {
    return harnessName.equals("rr") ? "unary" : harnessName;
  }

  private static String micros(double us) {
    return Double.isNaN(us) ? "n/a" : String.format(Locale.ROOT, "%.1f", us);
  }

  private static double ratio(long a, long b) {
    return b == 0 ? Double.NaN : (double) a / b;
  }

  /**
   * {@code verdict}, or, when calls of either run failed in the measured seconds, the ratio with
   * {@code (N calls failed: not valid)}: a run whose calls fail is not the comparison asked for.
   */
  static String valid(String verdict, Orchestrator.Result a, Orchestrator.Result b) {
    long failed = Math.max(0, a.failed()) + Math.max(0, b.failed());
    if (failed == 0) {
      return verdict;
    }
    return verdict.replace(" met", "").replace(" missed", "") + " (" + failed
        + " calls failed: not valid)";
  }

  /** {@code 1.31x met} / {@code 0.92x missed}; {@code atLeast} false means at most the target. */
  static String verdict(double ratio, double target, boolean atLeast) {
    if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
      return "n/a";
    }
    boolean met = atLeast ? ratio >= target : ratio <= target;
    return String.format(Locale.ROOT, "%.2fx %s", ratio, met ? "met" : "missed");
  }
}
