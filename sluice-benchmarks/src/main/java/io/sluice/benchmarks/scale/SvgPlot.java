package io.sluice.benchmarks.scale;

import java.util.List;
import java.util.Locale;

/**
 * Line charts as SVG text, drawn by hand (no plotting library): {@link #chart} draws one chart
 * (axes, ticks, one polyline and legend entry per series; x on a log-10 scale) into a {@code <g>};
 * {@link #document} puts charts side by side in one {@code <svg>}.
 */
final class SvgPlot {
  private SvgPlot() {}

  /** One line: its name and points (x > 0 for the log scale; NaN y values are skipped). */
  record Series(String name, double[] x, double[] y) {}

  static final int WIDTH = 480;
  static final int HEIGHT = 340;
  private static final int LEFT = 60;
  private static final int RIGHT = 20;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"};

  /** Charts side by side, each {@link #WIDTH} x {@link #HEIGHT}. */
  static String document(List<String> charts) {
    StringBuilder b = new StringBuilder();
    int w = WIDTH * charts.size();
    b.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
            + " font-family=\"sans-serif\" font-size=\"11\">%n", w, HEIGHT, w, HEIGHT));
    b.append(String.format(Locale.ROOT,
        "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", w, HEIGHT));
    for (int i = 0; i < charts.size(); i++) {
      b.append(String.format(Locale.ROOT, "<g transform=\"translate(%d,0)\">%n", i * WIDTH));
      b.append(charts.get(i));
      b.append("</g>\n");
    }
    return b.append("</svg>\n").toString();
  }

  /** One chart: {@code title} above, {@code xLabel} below the log-10 x axis, {@code yLabel} left. */
  static String chart(String title, String xLabel, String yLabel, List<Series> series) {
    double xMin = Double.MAX_VALUE;
    double xMax = -Double.MAX_VALUE;
    double yMax = 0;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        if (s.x()[i] > 0 && !Double.isNaN(s.y()[i])) {
          xMin = Math.min(xMin, s.x()[i]);
          xMax = Math.max(xMax, s.x()[i]);
          yMax = Math.max(yMax, s.y()[i]);
        }
      }
    }
    if (xMin > xMax) { // nothing to draw
      xMin = 1;
      xMax = 10;
    }
    double lo = Math.floor(Math.log10(xMin));
    double hi = Math.max(lo + 1, Math.ceil(Math.log10(xMax)));
    double top = niceCeiling(yMax);
    int pw = WIDTH - LEFT - RIGHT;
    int ph = HEIGHT - TOP - BOTTOM;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">%s</text>%n",
        WIDTH / 2, escape(title)));
    b.append(String.format(Locale.ROOT,
        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>%n",
        LEFT, TOP, pw, ph));
    for (int d = (int) lo; d <= (int) hi; d++) {
      double px = LEFT + (d - lo) / (hi - lo) * pw;
      b.append(String.format(Locale.ROOT,
          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", px, TOP, px, TOP + ph));
      b.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
          px, TOP + ph + 15, tickLabel(Math.pow(10, d))));
    }
    for (int t = 0; t <= 4; t++) {
      double v = top * t / 4;
      double py = TOP + ph - (v / top) * ph;
      b.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, py, LEFT + pw, py));
      b.append(String.format(Locale.ROOT,
          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 4, py + 4, tickLabel(v)));
    }
    b.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
        LEFT + pw / 2, HEIGHT - 12, escape(xLabel)));
    b.append(String.format(Locale.ROOT,
        "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">%s</text>%n",
        TOP + ph / 2, TOP + ph / 2, escape(yLabel)));
    for (int k = 0; k < series.size(); k++) {
      Series s = series.get(k);
      String color = COLORS[k % COLORS.length];
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < s.x().length; i++) {
        if (s.x()[i] > 0 && !Double.isNaN(s.y()[i])) {
          double px = LEFT + (Math.log10(s.x()[i]) - lo) / (hi - lo) * pw;
          double py = TOP + ph - (s.y()[i] / top) * ph;
          pts.append(String.format(Locale.ROOT, "%s%.1f,%.1f", pts.length() == 0 ? "" : " ", px, py));
        }
      }
      b.append(String.format(Locale.ROOT,
          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n", color, pts));
      int ly = TOP + 14 + k * 15;
      b.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>%n",
          LEFT + 8, ly - 4, LEFT + 26, ly - 4, color));
      b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n",
          LEFT + 30, ly, escape(s.name())));
    }
    return b.toString();
  }

  /** The smallest of 1, 2, 2.5, 5 times a power of ten at or above {@code v} (1 for v <= 0). */
  static double niceCeiling(double v) {
    if (!(v > 0)) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String tickLabel(double v) {
    if (v >= 1000 && v % 1000 == 0) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
