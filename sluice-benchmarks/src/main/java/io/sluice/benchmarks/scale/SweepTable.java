package io.sluice.benchmarks.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table of {@code --scale-sweep}: one row per step of every run, keyed by streams per
 * connection, with the per-unit costs derived from the rows: heap and RSS per idle connection
 * (the streams-per-connection 0 run against its own first step), heap per live stream (a run with
 * streams against the idle run at the same connections, interpolated between its steps), CPU and
 * allocation per message.
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
        double idleHeap = s == 0 || idle == null ? Double.NaN : idleHeapMb(idle, l.connections());
        if (!Double.isNaN(idleHeap) && l.streams() > 0) {
          perStream = fmt((l.heapAfterGcMb() - idleHeap) * 1048576 / l.streams(), "%.0f");
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

  /**
   * The idle run's heap after GC at {@code connections}: its own step there, or the straight line
   * between the steps either side; NaN outside its range.
   */
  static double idleHeapMb(List<ScaleLine> idle, int connections) {
    for (int i = 0; i < idle.size(); i++) {
      ScaleLine b = idle.get(i);
      if (b.connections() == connections) {
        return b.heapAfterGcMb();
      }
      if (i > 0 && b.connections() > connections && idle.get(i - 1).connections() < connections) {
        ScaleLine a = idle.get(i - 1);
        double f = (double) (connections - a.connections()) / (b.connections() - a.connections());
        return a.heapAfterGcMb() + f * (b.heapAfterGcMb() - a.heapAfterGcMb());
      }
    }
    return Double.NaN;
  }

  private static String fmt(double v, String format) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, format, v);
  }
}
