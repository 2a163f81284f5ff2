package io.sluice.benchmarks.many;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One row of one impl in the many-connections mode: the client's {@code MANY} line (calls timed
 * over the measured seconds, failures, percentiles) and the server's process CPU time over the same
 * seconds.
 */
public record ManyResult(
    String impl,
    int connections,
    ManyOptions.Shape shape,
    long calls,
    long failed,
    long nanos,
    long p50Nanos,
    long p99Nanos,
    long p999Nanos,
    long serverCpuNanos) {

  /**
   * Reads a client's {@code MANY calls=.. failed=.. nanos=.. p50_ns=.. p99_ns=.. p999_ns=..} line;
   * an IllegalStateException if a field is missing.
   */
  public static ManyResult parse(
      String impl, int connections, ManyOptions.Shape shape, String line, long serverCpuNanos) {
    Map<String, String> f = new HashMap<>();
    for (String word : line.trim().split("\\s+")) {
      int eq = word.indexOf('=');
      if (eq > 0) {
        f.put(word.substring(0, eq), word.substring(eq + 1));
      }
    }
    try {
      return new ManyResult(impl, connections, shape,
          Long.parseLong(f.get("calls")), Long.parseLong(f.get("failed")),
          Long.parseLong(f.get("nanos")), Long.parseLong(f.get("p50_ns")),
          Long.parseLong(f.get("p99_ns")), Long.parseLong(f.get("p999_ns")), serverCpuNanos);
    } catch (NullPointerException | NumberFormatException e) {
      throw new IllegalStateException("not a MANY line: " + line, e);
    }
  }

  /** Calls per second over the measured seconds. */
  public double qps() {
    return nanos <= 0 ? 0 : calls * 1e9 / nanos;
  }

  /** The server process's CPU time per call, in microseconds; NaN when unknown or no call ended. */
  public double serverCpuMicrosPerCall() {
    return calls == 0 || serverCpuNanos < 0 ? Double.NaN : serverCpuNanos / 1000.0 / calls;
  }

  /** The machine-readable line of this row. */
  public String line() {
    return String.format(Locale.ROOT,
        "RESULT many-connections impl=%s connections=%d concurrency=%d response_size=%d qps=%.0f"
            + " p50_us=%s p99_us=%s p999_us=%s failed_calls=%d server_cpu_us_per_call=%s",
        impl, connections, shape.concurrency(), shape.responseSize(), qps(), micros(p50Nanos),
        micros(p99Nanos), micros(p999Nanos), failed, number(serverCpuMicrosPerCall(), "%.2f"));
  }

  private static String micros(long nanos) {
    return nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
  }

  private static String number(double v, String format) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, format, v);
  }

  /**
   * The table of a run: one row per shape with each impl's QPS and p99, and Sluice raw's and Sluice
   * RPC's ratio to grpc-java for both ({@code qps} above 1 and {@code p99} below 1 are Sluice
   * ahead). {@code rows} holds, per shape, the results of {@link ManyOptions#IMPLS} in order; a
   * ratio whose runs had failed calls is marked so.
   */
  public static List<String> table(List<List<ManyResult>> rows) {
    List<String> out = new ArrayList<>();
    out.add("| connections / calls in flight / answer | sluice QPS | sluice-rpc QPS | grpc-java QPS"
        + " | sluice / grpc QPS | rpc / grpc QPS | sluice p99 µs | sluice-rpc p99 µs"
        + " | grpc-java p99 µs | sluice / grpc p99 | rpc / grpc p99 |");
    out.add("|---|---|---|---|---|---|---|---|---|---|---|");
    for (List<ManyResult> row : rows) {
      ManyResult raw = row.get(0);
      ManyResult rpc = row.get(1);
      ManyResult grpc = row.get(2);
      out.add(String.format(Locale.ROOT, "| %d / %d / %d B | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
          raw.connections(), raw.shape().concurrency(), raw.shape().responseSize(),
          rate(raw.qps()), rate(rpc.qps()), rate(grpc.qps()),
          ratio(raw.qps(), grpc.qps(), raw, grpc), ratio(rpc.qps(), grpc.qps(), rpc, grpc),
          micros(raw.p99Nanos()), micros(rpc.p99Nanos()), micros(grpc.p99Nanos()),
          ratio(raw.p99Nanos(), grpc.p99Nanos(), raw, grpc),
          ratio(rpc.p99Nanos(), grpc.p99Nanos(), rpc, grpc)));
    }
    return out;
  }

  /** {@code a / b} to two places; n/a without both; marked when either run had failed calls. */
  static String ratio(double a, double b, ManyResult x, ManyResult y) {
    if (!(a >= 0) || !(b > 0)) {
      return "n/a";
    }
    String r = String.format(Locale.ROOT, "%.2f", a / b);
    long failed = x.failed() + y.failed();
    return failed == 0 ? r : r + " (" + failed + " failed calls)";
  }

  /** Calls per second for the table: {@code 123 k/s}, {@code 1.23 M/s}, {@code 789/s}. */
  static String rate(double perSecond) {
    if (perSecond >= 1_000_000) {
      return String.format(Locale.ROOT, "%.2f M/s", perSecond / 1e6);
    }
    if (perSecond >= 10_000) {
      return String.format(Locale.ROOT, "%.0f k/s", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f/s", perSecond);
  }
}
