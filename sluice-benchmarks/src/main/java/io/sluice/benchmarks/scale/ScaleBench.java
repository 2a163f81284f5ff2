package io.sluice.benchmarks.scale;

import io.sluice.benchmarks.harness.Args;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./sluice bench --scale ...} and {@code --scale-sweep}: what {@code BenchMain} hands over
 * when either flag is on its command line; also the children {@code scale-server} and {@code
 * scale-client}.
 */
public final class ScaleBench {
  private ScaleBench() {}

  /** The connection steps of the sweep, by streams per connection. */
  static final Map<Integer, List<Integer>> SWEEP = new LinkedHashMap<>();

  static {
    SWEEP.put(0, List.of(1, 100, 1000, 2500, 5000, 10_000));
    SWEEP.put(10, List.of(1, 100, 1000, 2500, 5000, 10_000));
    SWEEP.put(100, List.of(1, 100, 1000, 2000));
  }

  /** The option and flag names the scale modes take (listed in bench-usage.txt). */
  public static java.util.Set<String> optionNames() {
    java.util.Set<String> names = new java.util.TreeSet<>(ScaleOptions.OPTIONS);
    names.addAll(ScaleOptions.FLAGS);
    return names;
  }

  /** The names and arity of the scale modes' options, no values (a parse-only check). */
  public static void checkNames(String[] argv, int from) {
    io.sluice.benchmarks.harness.Args.parse(argv, from, ScaleOptions.OPTIONS, ScaleOptions.FLAGS);
  }

  /** Whether {@code argv} asks for a scale mode (or is one of its children). */
  public static boolean handles(String[] argv) {
    if (argv.length > 0 && (argv[0].equals("scale-server") || argv[0].equals("scale-client"))) {
      return true;
    }
    for (String a : argv) {
      if (a.equals("--scale") || a.equals("--scale-sweep")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs the scale mode or child {@code argv} asks for; {@code from} is where the options start.
   * Usage errors are thrown as {@link Args.UsageException}, failures as IllegalStateException.
   */
  public static int run(String[] argv, int from, PrintStream out) throws Exception {
    if (argv[0].equals("scale-server")) {
      return ScaleServer.run(argv, out);
    }
    if (argv[0].equals("scale-client")) {
      return ScaleClient.run(argv, out);
    }
    ScaleOptions o = ScaleOptions.parse(argv, from);
    ScaleRun run = new ScaleRun(out);
    if (!o.sweep()) {
      out.println(String.format(Locale.ROOT,
          "# scale: %s server, %d connections x %d request-channels at %s msg/s each, %d ramp"
              + " steps (%d s each after %d s), hold %d s",
          o.impl(), o.connections(), o.streamsPerConnection(), rate(o.rate()), o.rampSteps(),
          ScaleRun.STEP_SECONDS, ScaleRun.SETTLE_SECONDS, o.holdSeconds()));
      run.run(o.impl(), ScaleOptions.rampConnections(o.connections(), o.rampSteps()),
          o.streamsPerConnection(), o.rate(), o.holdSeconds(), o.heapHisto());
      return 0;
    }
    Map<Integer, List<ScaleLine>> runs = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<Integer>> e : SWEEP.entrySet()) {
      out.println("## sweep: " + o.impl() + ", " + e.getKey() + " streams per connection, connections "
          + e.getValue());
      runs.put(e.getKey(),
          run.run(o.impl(), e.getValue(), e.getKey(), o.rate(), o.holdSeconds(), false));
    }
    out.println();
    for (String row : SweepTable.rows(runs)) {
      out.println(row);
    }
    Path svg = Path.of(o.svg());
    writeSvg(svg, o.impl(), o.rate(), runs);
    out.println();
    out.println("plot written to " + svg);
    return 0;
  }

  static String rate(double r) {
    return r == Math.rint(r) ? String.valueOf((long) r) : String.valueOf(r);
  }

  /** The sweep's plot: heap after GC and server CPU against connections, one line per run. */
  static String svg(String impl, double rate, Map<Integer, List<ScaleLine>> runs) {
    List<SvgPlot.Series> heap = new ArrayList<>();
    List<SvgPlot.Series> cpu = new ArrayList<>();
    for (Map.Entry<Integer, List<ScaleLine>> e : runs.entrySet()) {
      List<ScaleLine> l = e.getValue();
      double[] x = new double[l.size()];
      double[] h = new double[l.size()];
      double[] c = new double[l.size()];
      for (int i = 0; i < l.size(); i++) {
        x[i] = l.get(i).connections();
        h[i] = l.get(i).heapAfterGcMb();
        c[i] = l.get(i).serverCpuPct();
      }
      String name = e.getKey() + " streams/conn" + (e.getKey() == 0 ? " (idle)" : "");
      heap.add(new SvgPlot.Series(name, x, h));
      cpu.add(new SvgPlot.Series(name, x, c));
    }
    String what = impl + " server, " + rate(rate) + " msg/s per stream";
    return SvgPlot.document(List.of(
        SvgPlot.chart("Heap after GC (" + what + ")", "connections (log scale)", "MB", heap),
        SvgPlot.chart("Server CPU (% of one core)", "connections (log scale)", "% CPU", cpu)));
  }

  private static void writeSvg(Path file, String impl, double rate, Map<Integer, List<ScaleLine>> runs)
      throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    Files.writeString(file, svg(impl, rate, runs), StandardCharsets.UTF_8);
  }
}
