package io.sluice.benchmarks.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table of {@code --scale-sweep}: one row per step of every run, keyed by streams per
 * connection, with the per-unit costs derived from the rows: heap and RSS per idle connection
 * (the streams-per-connection 0 run against its own first step), heap per live stream (a run with
 * streams against the idle run at the same connections), CPU and allocation per message.
 */
final class SweepTable {
  private SweepTable() {}

  static final String HEADER =
      "| streams/conn | connections | streams | msgs/s | server CPU % | heap after GC MB | RSS MB"
          + " | heap/idle conn KiB | RSS/idle conn KiB | heap/live stream B | CPU µs/msg"
          + " | alloc B/msg | p99 ms | failed |";

  /** Markdown rows (header and separator first) of the runs, by streams per connection. */
  static List<String> rows(Map<Integer, List<ScaleLine>> runs) {
    List<String> out = new ArrayList<>();
    out.add(HEADER);
    out.add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    List<ScaleLine> idle = runs.get(0);
    for (Map.Entry<Integer, List<ScaleLine>> run : runs.entrySet()) {
      int s = run.getKey();
      ScaleLine base = run.getValue().get(0);
      for (ScaleLine l : run.getValue()) {
        String perConn = "";
        String rssPerConn = "";
        String perStream = "";
        if (s == 0 && l.connections() > base.connections()) {
          int dc = l.connections() - base.connections();
          perConn = fmt((l.heapAfterGcMb() - base.heapAfterGcMb()) * 1024 / dc, "%.2f");
          rssPerConn = fmt((l.rssMb() - base.rssMb()) * 1024 / dc, "%.1f");
        }
        ScaleLine same = s == 0 || idle == null ? null : at(idle, l.connections());
        if (same != null && l.streams() > 0) {
          perStream = fmt((l.heapAfterGcMb() - same.heapAfterGcMb()) * 1048576 / l.streams(), "%.0f");
        }
        out.add(String.format(Locale.ROOT,
            "| %d | %d | %d | %.0f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %d |",
            s, l.connections(), l.streams(), l.msgsPerSec(), l.serverCpuPct(), l.heapAfterGcMb(),
            l.rssMb(), perConn, rssPerConn, perStream, fmt(l.cpuMicrosPerMessage(), "%.2f"),
            fmt(l.allocBytesPerMessage(), "%.0f"), fmt(l.p99Ms(), "%.2f"), l.failedStreams()));
      }
    }
    return out;
  }

  private static ScaleLine at(List<ScaleLine> lines, int connections) {
    for (ScaleLine l : lines) {
      if (l.connections() == connections) {
        return l;
      }
    }
    return null;
  }

  private static String fmt(double v, String format) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, format, v);
  }
}
