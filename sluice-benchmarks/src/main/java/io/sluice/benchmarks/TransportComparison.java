package io.sluice.benchmarks;

import io.sluice.benchmarks.sluice.BenchTransports;
import io.sluice.transport.netty.IoMode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./sluice bench --compare-transports}: request-stream and request-response at 8 and 140
 * bytes over each transport Sluice has (TCP on each I/O engine that loads here, every other
 * transport of {@link BenchTransports} on NIO, TCP with TLS) and rsocket-java's WebSocket transport, in one run; then one table with
 * each transport's ratio to TCP on NIO, and WebSocket's ratio to rsocket-java's.
 */
final class TransportComparison {
  private TransportComparison() {}

  /** A column: what the table calls it and the impl that runs it. */
  record Column(String label, String impl) {}

  /** The yardstick every ratio is taken against. */
  static final String BASE = "sluice@tcp/nio";

  static final String WS = "sluice@ws/nio";

  static final String PEER_WS = "rsocket-java-ws";

  /**
   * The columns of this run: the native engines only where they load (their rows say so
   * otherwise); unix sockets, WebSocket and TLS on NIO, so that they compare with the base alone.
   */
  static List<Column> columns() {
    List<Column> c = new ArrayList<>();
    c.add(new Column("tcp (nio)", BASE));
    for (IoMode mode : List.of(IoMode.EPOLL, IoMode.IO_URING)) {
      c.add(new Column("tcp (" + mode.label() + ")", "sluice@tcp/" + mode.label()));
    }
    // Every other transport of the registry (uds, ws, ...) on NIO.
    for (String name : BenchTransports.names()) {
      if (!name.equals("tcp")) {
        c.add(new Column(name + " (nio)", "sluice@" + name + "/nio"));
      }
    }
    c.add(new Column("tcp+tls (nio)", "sluice@tcp/nio+tls"));
    c.add(new Column("rsocket-java ws", PEER_WS));
    return c;
  }

  /** Why {@code impl} cannot run here, or null. */
  static String unavailable(String impl) {
    for (IoMode mode : List.of(IoMode.EPOLL, IoMode.IO_URING)) {
      if (impl.equals("sluice@tcp/" + mode.label())) {
        Throwable cause = mode.unavailabilityCause();
        return cause == null
            ? null
            : mode.label() + " does not load here (build with -Pnative-io, docs/guide/transports.md)";
      }
    }
    return null;
  }

  static int run(Orchestrator o, int warmup, int seconds, PrintStream out) throws Exception {
    List<Column> columns = columns();
    Map<String, Map<String, Orchestrator.Result>> rows = new LinkedHashMap<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    for (String interaction : List.of("stream", "rr")) {
      for (int size : List.of(8, 140)) {
        Map<String, Orchestrator.Result> row = new LinkedHashMap<>();
        for (Column c : columns) {
          String why = unavailable(c.impl());
          if (why != null) {
            skipped.put(c.label(), why);
            continue;
          }
          out.println("## " + c.label() + " " + interaction + " " + size + " B");
          row.put(c.impl(), o.throughput(c.impl(), interaction, size, 512, warmup, seconds));
        }
        rows.put(interaction + " " + size + " B", row);
      }
    }
    out.println();
    StringBuilder head = new StringBuilder("| interaction");
    StringBuilder rule = new StringBuilder("|---");
    for (Column c : columns) {
      if (!skipped.containsKey(c.label())) {
        head.append(" | ").append(c.label());
        rule.append("|---");
      }
    }
    out.println(head + " | ws / rsocket-java ws |");
    out.println(rule + "|---|");
    for (Map.Entry<String, Map<String, Orchestrator.Result>> e : rows.entrySet()) {
      Map<String, Orchestrator.Result> row = e.getValue();
      long base = median(row, BASE);
      StringBuilder line = new StringBuilder("| " + e.getKey());
      for (Column c : columns) {
        if (skipped.containsKey(c.label())) {
          continue;
        }
        long m = median(row, c.impl());
        line.append(" | ").append(Orchestrator.rate(m));
        if (!c.impl().equals(BASE)) {
          line.append(" (").append(ratio(m, base)).append(")");
        }
      }
      line.append(" | ").append(ratio(median(row, WS), median(row, PEER_WS))).append(" |");
      out.println(line);
    }
    out.println();
    out.println("messages/s are medians of the per-second counts; in brackets each one's ratio to tcp"
        + " (nio) in the same run; the last column is Sluice's WebSocket over rsocket-java's.");
    skipped.forEach((label, why) -> out.println("not run: " + label + ": " + why));
    return 0;
  }

  private static long median(Map<String, Orchestrator.Result> row, String impl) {
    Orchestrator.Result r = row.get(impl);
    return r == null ? 0 : r.median();
  }

  private static String ratio(long value, long base) {
    return base == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", (double) value / base);
  }
}
