package io.sluice.benchmarks.scale;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code --heap-histo}: the server's live heap by class ({@code jmap -histo:live <pid>}, which
 * runs a full GC first), the top classes printed with their bytes and instances per connection.
 */
final class HeapHisto {
  private HeapHisto() {}

  static final int TOP = 25;

  static void print(long pid, int connections, PrintStream out)
      throws IOException, InterruptedException {
    String jmap = System.getProperty("java.home") + File.separator + "bin" + File.separator + "jmap";
    Process p = new ProcessBuilder(jmap, "-histo:live", String.valueOf(pid))
        .redirectErrorStream(true)
        .start();
    byte[] text;
    try {
      text = p.getInputStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("jmap -histo:live " + pid + " took over 120 s");
      }
    } finally {
      p.destroyForcibly();
    }
    out.println("# heap histogram of the server (jmap -histo:live " + pid + "), top " + TOP
        + ", per connection at " + connections + " connections");
    out.println("HISTO rank instances bytes class instances_per_conn bytes_per_conn");
    for (String row : rows(new String(text, StandardCharsets.UTF_8), TOP)) {
      String[] f = row.trim().split("\\s+");
      long instances = Long.parseLong(f[1]);
      long bytes = Long.parseLong(f[2]);
      out.println(String.format(Locale.ROOT, "HISTO %s %d %d %s %.2f %.1f", f[0].replace(":", ""),
          instances, bytes, f[3], (double) instances / connections, (double) bytes / connections));
    }
    out.flush();
  }

  /** The first {@code top} class rows of a {@code jmap -histo} output ({@code "  1:  n  b  class"}). */
  static List<String> rows(String histo, int top) {
    List<String> rows = new ArrayList<>();
    for (String line : histo.split("\n")) {
      String t = line.trim();
      if (t.matches("\\d+:\\s+\\d+\\s+\\d+\\s+\\S+.*") && rows.size() < top) {
        rows.add(t);
      }
    }
    return rows;
  }
}
