package io.sluice.benchmarks.harness;

import com.sun.management.ThreadMXBean;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What a scale-benchmark server counts (connections, live and failed streams, messages and their
 * delivery latency) and the control protocol the orchestrator drives it with on stdin, shared by
 * Sluice's scale server and the rsocket-java peer's, so both are measured the same way.
 *
 * <p>Commands: {@code MARK} starts a measurement (process CPU time, bytes allocated by every live
 * thread, the wall clock, the message count, a fresh latency histogram); {@code REPORT} prints
 * {@link #report} since then; {@code GC} runs {@code System.gc()} and prints {@code SCALE_HEAP
 * used_bytes=.. rss_kb=..}; {@code PID} prints {@code SCALE_PID <pid>}. End of stdin returns. A
 * REPORT before any MARK covers the time since this object was made.
 *
 * <p>Each message carries the sender's {@link System#nanoTime()} in its first 8 bytes (one clock
 * for every process on a Linux machine); {@link #delivered} records now minus that.
 */
public final class ScaleServerStats {
  private final LongAdder connections = new LongAdder();
  private final LongAdder streams = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder messages = new LongAdder();
  private final Recorder latency = new Recorder(3);
  private final long created = System.nanoTime();

  /** A connection was accepted (+1) or closed (-1). */
  public void connection(int delta) {
    connections.add(delta);
  }

  /** A stream opened. */
  public void streamOpened() {
    streams.increment();
  }

  /** A stream ended; {@code failure} when it ended by an error or a cancel, not by the bench. */
  public void streamEnded(boolean failure) {
    streams.decrement();
    if (failure) {
      failed.increment();
    }
  }

  /** A message stamped with the sender's {@code System.nanoTime()} arrived now. */
  public void delivered(long sentNanos) {
    messages.increment();
    long d = System.nanoTime() - sentNanos;
    latency.recordValue(d < 0 ? 0 : d);
  }

  /** Live streams now. */
  public long liveStreams() {
    return streams.sum();
  }

  /** Answers the commands on {@code stdin} until it ends. */
  public void serve(java.io.InputStream stdin, PrintStream out) throws IOException {
    ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    // Before the first MARK, a REPORT covers everything since this object was made (CPU and
    // allocation: since the threads started).
    Map<Long, Long> allocMark = new HashMap<>();
    long cpuMark = 0;
    long wallMark = created;
    long msgMark = 0;
    long failedMark = 0;
    BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.US_ASCII));
    String line;
    while ((line = in.readLine()) != null) {
      String reply = null;
      switch (line.trim()) {
        case "MARK":
          latency.getIntervalHistogram(); // from now on
          allocMark = allocations(mx);
          cpuMark = processCpuNanos();
          wallMark = System.nanoTime();
          msgMark = messages.sum();
          failedMark = failed.sum();
          break;
        case "REPORT":
          long wall = System.nanoTime() - wallMark;
          long cpu = processCpuNanos() - cpuMark;
          long alloc = 0;
          for (Map.Entry<Long, Long> e : allocations(mx).entrySet()) {
            alloc += e.getValue() - allocMark.getOrDefault(e.getKey(), 0L);
          }
          reply = report(wall, cpu, alloc, messages.sum() - msgMark, latency.getIntervalHistogram(),
              connections.sum(), streams.sum(), failed.sum() - failedMark, rssKib());
          break;
        case "GC":
          System.gc();
          System.gc();
          long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
          reply = "SCALE_HEAP used_bytes=" + used + " rss_kb=" + rssKib();
          break;
        case "PID":
          reply = "SCALE_PID " + ProcessHandle.current().pid();
          break;
        default:
          reply = "SCALE_ERROR unknown command " + line;
      }
      if (reply != null) {
        synchronized (out) {
          out.println(reply);
          out.flush();
        }
      }
    }
  }

  /**
   * The {@code SCALE_REPORT} line: wall and CPU nanoseconds, bytes allocated, messages received,
   * latency percentiles in nanoseconds (-1 when nothing was received), connections and streams
   * live now, streams failed in the window, resident set in KiB.
   */
  public static String report(long wallNanos, long cpuNanos, long allocBytes, long msgs,
      Histogram h, long connections, long streams, long failed, long rssKib) {
    boolean none = h.getTotalCount() == 0;
    return String.format(Locale.ROOT,
        "SCALE_REPORT wall_ns=%d cpu_ns=%d alloc_bytes=%d msgs=%d p50_ns=%d p99_ns=%d p999_ns=%d"
            + " connections=%d streams=%d failed=%d rss_kb=%d",
        wallNanos, cpuNanos, allocBytes, msgs,
        none ? -1 : h.getValueAtPercentile(50),
        none ? -1 : h.getValueAtPercentile(99),
        none ? -1 : h.getValueAtPercentile(99.9),
        connections, streams, failed, rssKib);
  }

  /** VmRSS of this process from /proc/self/status in KiB, -1 where there is none. */
  public static long rssKib() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.substring("VmRSS:".length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return -1;
  }

  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
        : -1;
  }

  /** Bytes allocated so far by each live thread (a thread that ended since is not counted). */
  private static Map<Long, Long> allocations(ThreadMXBean mx) {
    long[] ids = mx.getAllThreadIds();
    long[] bytes = mx.getThreadAllocatedBytes(ids);
    Map<Long, Long> result = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        result.put(ids[i], bytes[i]);
      }
    }
    return result;
  }
}
