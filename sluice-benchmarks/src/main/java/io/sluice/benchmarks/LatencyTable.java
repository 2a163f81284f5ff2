package io.sluice.benchmarks;

import io.sluice.benchmarks.grpc.GrpcImpl;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.sluice.BenchTransports;
import io.sluice.transport.netty.IoMode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./sluice bench --latency [--transport T] [--io E] [--tls]} and {@code --latency
 * --compare-transports [--io E]}: the latency table of issue 21. Request-streams of the 24 {@link
 * io.sluice.benchmarks.harness.StreamTexts} (interaction {@link Spec#TEXTS24}) at concurrency 1, 4
 * and 8 — C callers on one connection, each starting its next stream when the last completes, a
 * stream timed from the request to its completion — over one transport, or over every transport of
 * {@link BenchTransports} and grpc-java's server-streaming call of the same texts. Each case is a
 * new server and client JVM pair (warm-up, then the measured seconds: {@link
 * Orchestrator#latencyStats}); each prints one {@code RESULT latency ...} line, and the comparison
 * ends with a markdown table.
 */
final class LatencyTable {
  private LatencyTable() {}

  /** Callers on the one connection, one case each. */
  static final List<Integer> CONCURRENCY = List.of(1, 4, 8);

  /** What RESULT lines and the table call grpc-java, the yardstick of the ratios. */
  static final String GRPC = "grpc-java";

  /** One transport of the table: what RESULT lines call it and the impl that runs it. */
  record Target(String transport, String impl) {}

  /** What a {@code --latency} command line asks for: the transports, and on which I/O engines. */
  record Plan(List<Target> targets, boolean compare, String engines) {}

  /** One measured case. */
  record Row(String transport, int concurrency, Orchestrator.Latency latency) {}

  /**
   * The plan of a {@code --latency} command line, or null when it asks for the per-impl latency
   * mode instead ({@code --impl}, {@code --compare}, {@code --compare-flavors}). Bad combinations
   * are usage errors; a transport not built yet is a {@link BenchTransports.NotBuiltException}; an
   * engine named with {@code --io} that does not load here an IllegalStateException.
   */
  static Plan plan(Args a) {
    boolean compare = a.flag("compare-transports");
    if (a.has("impl") || a.flag("compare") || a.flag("compare-flavors")) {
      if (compare) {
        throw new Args.UsageException(
            "--latency --compare-transports takes no --impl, --compare or --compare-flavors");
      }
      if (a.has("transport") || a.has("io") || a.flag("tls")) {
        throw new Args.UsageException("--transport, --io and --tls go with --latency alone (the"
            + " stream table); with --impl name the impl instead, e.g. --impl sluice@ws/nio");
      }
      return null;
    }
    for (String option : List.of("size", "interaction", "window")) {
      if (a.has(option)) {
        throw new Args.UsageException("--latency streams fixed texts: no --" + option
            + " (the per-impl mode, --latency --impl I, takes --size)");
      }
    }
    IoMode io;
    try {
      io = IoMode.parse(a.get("io", "auto"));
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--io: " + e.getMessage());
    }
    Throwable cause = io.unavailabilityCause();
    if (cause != null) {
      throw new IllegalStateException(io.label() + " does not load here (" + cause
          + "); ./sluice bench --io " + io.label() + " builds with -Pnative-io");
    }
    IoMode engine = io.resolve();
    List<Target> targets = new ArrayList<>();
    if (!compare) {
      String name = a.get("transport", "tcp");
      if (BenchTransports.find(name) == null) {
        throw new Args.UsageException(
            "--transport is one of " + BenchTransports.names() + ", got '" + name + "'");
      }
      boolean tls = a.flag("tls");
      targets.add(sluice(name, engine, tls));
      return new Plan(List.copyOf(targets), false, "Sluice on " + engine.label());
    }
    if (a.has("transport")) {
      throw new Args.UsageException(
          "--latency --compare-transports runs every transport: no --transport");
    }
    if (a.flag("tls")) {
      throw new Args.UsageException(
          "--latency --compare-transports runs without TLS (grpc-java's side is plaintext)");
    }
    for (String name : BenchTransports.names()) {
      targets.add(sluice(name, engine, false));
    }
    // grpc-netty-shaded brings its own epoll: grpc-java gets it whenever Sluice runs native.
    boolean grpcEpoll = engine != IoMode.NIO && GrpcImpl.epollAvailable();
    targets.add(new Target(GRPC, grpcEpoll ? GrpcImpl.EPOLL : GRPC));
    return new Plan(List.copyOf(targets), true,
        "Sluice on " + engine.label() + ", grpc-java on " + (grpcEpoll ? "epoll" : "nio"));
  }

  /** Sluice over transport {@code name} on {@code engine}: the impl {@code sluice@name/engine}. */
  static Target sluice(String name, IoMode engine, boolean tls) {
    String suffix = tls ? "+tls" : "";
    return new Target(name + suffix, "sluice@" + name + "/" + engine.label() + suffix);
  }

  /** Runs every case of {@code plan}, printing a RESULT line each, and the table when comparing. */
  static int run(Orchestrator o, Plan plan, int warmup, int seconds, PrintStream out)
      throws Exception {
    out.println("# latency: request-stream of " + Spec.STREAM24 + " texts of up to 100 characters;"
        + " concurrency " + CONCURRENCY + "; " + plan.engines());
    List<Row> rows = new ArrayList<>();
    for (Target t : plan.targets()) {
      for (int c : CONCURRENCY) {
        out.println("## " + t.transport() + " stream concurrency " + c + " (" + t.impl() + ")");
        out.flush();
        Orchestrator.Latency l = o.latencyStats(t.impl(), Spec.TEXTS24, 0, c, warmup, seconds);
        Row row = new Row(t.transport(), c, l);
        out.println(resultLine(row));
        out.flush();
        rows.add(row);
      }
    }
    if (plan.compare()) {
      out.println();
      out.print(table(rows));
      out.println();
      out.println("p50/p95/p99 in microseconds, from sending the request to the stream's completion;"
          + " streams/s completed over the measured seconds; the last column is streams/s over"
          + " grpc-java's at the same concurrency. " + plan.engines() + ".");
    }
    out.flush();
    return 0;
  }

  /** {@code RESULT latency transport=T interaction=stream concurrency=C p50_us=.. ...}. */
  static String resultLine(Row r) {
    Orchestrator.Latency l = r.latency();
    return String.format(Locale.ROOT,
        "RESULT latency transport=%s interaction=stream concurrency=%d p50_us=%.1f p95_us=%.1f"
            + " p99_us=%.1f streams_per_sec=%d server_cpu_us_per_stream=%.1f"
            + " client_cpu_us_per_stream=%.1f",
        r.transport(), r.concurrency(), l.p50Micros(), l.p95Micros(), l.p99Micros(),
        l.opsPerSecond(), l.serverCpuMicros(), l.clientCpuMicros());
  }

  /** The markdown table of {@code rows}, with each row's streams/s over grpc-java's. */
  static String table(List<Row> rows) {
    StringBuilder t = new StringBuilder();
    t.append("| transport | concurrency | p50 µs | p95 µs | p99 µs | streams/s | vs grpc-java"
        + " | server CPU µs/stream | client CPU µs/stream |\n");
    t.append("|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      Orchestrator.Latency l = r.latency();
      t.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %,d | %s | %s | %s |\n",
          r.transport(), r.concurrency(), l.p50Micros(), l.p95Micros(), l.p99Micros(),
          l.opsPerSecond(), ratio(l.opsPerSecond(), grpc(rows, r.concurrency())),
          cpu(l.serverCpuMicros()), cpu(l.clientCpuMicros())));
    }
    return t.toString();
  }

  /** grpc-java's streams/s at {@code concurrency}, or 0 when it did not run. */
  private static long grpc(List<Row> rows, int concurrency) {
    for (Row r : rows) {
      if (r.transport().equals(GRPC) && r.concurrency() == concurrency) {
        return r.latency().opsPerSecond();
      }
    }
    return 0;
  }

  private static String cpu(double micros) {
    return Double.isNaN(micros) ? "n/a" : String.format(Locale.ROOT, "%.1f", micros);
  }

  private static String ratio(long value, long base) {
    return base == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", (double) value / base);
  }
}
