package io.sluice.benchmarks.scale;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One measured window of a scale run, from the server's {@code SCALE_REPORT} and {@code
 * SCALE_HEAP} lines and the client's {@code SCALE_CLIENT} line, and the lines it prints: a {@code
 * STEP} line per ramp step and the final {@code RESULT scale} line.
 */
record ScaleLine(
    int connections,
    long streams,
    double msgsPerSec,
    double serverCpuPct,
    double heapAfterGcMb,
    double rssMb,
    double allocMbPerSec,
    double p50Ms,
    double p99Ms,
    double p999Ms,
    long failedStreams,
    long messages,
    long cpuNanos,
    long allocBytes) {

  /** Reads {@code key=value} words; words without '=' are skipped. */
  static Map<String, String> fields(String line) {
    Map<String, String> f = new HashMap<>();
    for (String word : line.trim().split("\\s+")) {
      int eq = word.indexOf('=');
      if (eq > 0) {
        f.put(word.substring(0, eq), word.substring(eq + 1));
      }
    }
    return f;
  }

  private static long num(Map<String, String> f, String key, String line) {
    String v = f.get(key);
    if (v == null) {
      throw new IllegalStateException("no " + key + "= in: " + line);
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("not a number, " + key + "=" + v + " in: " + line, e);
    }
  }

  /**
   * The window's figures: {@code report} a server's SCALE_REPORT, {@code heap} its SCALE_HEAP after
   * the window, {@code client} the client's SCALE_CLIENT; {@code streams} the live streams the
   * client opened, {@code connections} likewise.
   */
  static ScaleLine of(int connections, long streams, String report, String heap, String client) {
    Map<String, String> r = fields(report);
    Map<String, String> h = fields(heap);
    Map<String, String> c = fields(client);
    double seconds = num(r, "wall_ns", report) / 1e9;
    long msgs = num(r, "msgs", report);
    long cpu = num(r, "cpu_ns", report);
    long alloc = num(r, "alloc_bytes", report);
    return new ScaleLine(
        connections,
        streams,
        msgs / seconds,
        cpu < 0 ? Double.NaN : 100.0 * cpu / 1e9 / seconds,
        num(h, "used_bytes", heap) / 1048576.0,
        num(h, "rss_kb", heap) / 1024.0,
        alloc / 1048576.0 / seconds,
        millis(num(r, "p50_ns", report)),
        millis(num(r, "p99_ns", report)),
        millis(num(r, "p999_ns", report)),
        // Streams the client saw end, or streams it opened that the server does not hold.
        Math.max(num(c, "failed_streams", client), streams - num(r, "streams", report)),
        msgs,
        cpu,
        alloc);
  }

  private static double millis(long nanos) {
    return nanos < 0 ? Double.NaN : nanos / 1e6;
  }

  /** CPU microseconds per message received (NaN without messages). */
  double cpuMicrosPerMessage() {
    return messages == 0 ? Double.NaN : cpuNanos / 1e3 / messages;
  }

  /** Bytes allocated per message received (NaN without messages). */
  double allocBytesPerMessage() {
    return messages == 0 ? Double.NaN : (double) allocBytes / messages;
  }

  private String common() {
    return String.format(Locale.ROOT,
        "connections=%d streams=%d msgs_per_sec=%.0f server_cpu_pct=%.1f heap_after_gc_mb=%.1f"
            + " rss_mb=%.1f alloc_mb_per_sec=%.2f p50_ms=%.2f p99_ms=%.2f",
        connections, streams, msgsPerSec, serverCpuPct, heapAfterGcMb, rssMb, allocMbPerSec, p50Ms,
        p99Ms);
  }

  /** {@code STEP n/N connections=.. ... p99_ms=.. failed_streams=..}. */
  String step(int step, int steps) {
    return "STEP " + step + "/" + steps + " " + common() + " failed_streams=" + failedStreams;
  }

  /** The one {@code RESULT scale ...} line of a run. */
  String result() {
    return "RESULT scale " + common()
        + String.format(Locale.ROOT, " p999_ms=%.2f failed_streams=%d", p999Ms, failedStreams);
  }
}
