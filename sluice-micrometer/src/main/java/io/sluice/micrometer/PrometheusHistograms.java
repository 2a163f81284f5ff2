package io.sluice.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.util.TimeUtils;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The RPC histograms of a {@link PrometheusMeterRegistry}, read from {@link PerThreadCells} when
 * Prometheus scrapes instead of recorded into Micrometer timers per call. Loaded only when the
 * registry is a {@code PrometheusMeterRegistry} (micrometer-registry-prometheus is an optional
 * dependency of this module).
 *
 * <p><b>What Prometheus sees is what a Micrometer timer or distribution summary would give</b>:
 * each series is first registered as the Micrometer meter it stands for, so the user's meter
 * filters (common tags, renames, denials), the naming convention and the description apply as
 * for any meter; its id, Prometheus name, labels and help are taken from that meter, which is then
 * removed and exported from here: a histogram family with the same buckets ({@code le}), {@code
 * _count} and {@code _sum}, and the {@code _max} gauge family (the largest value of about the last
 * {@link #MAX_WINDOW_MILLIS} ms, as Micrometer's time-window max in this registry). {@code
 * RpcMetersPrometheusTest} compares the two scrapes line for line.
 *
 * <p>One collector per Prometheus registry serves every {@code RpcMeters} bound to it, so that two
 * (client interceptors for two targets, say) share their families; series with the same labels
 * are summed.
 */
final class PrometheusHistograms implements MultiCollector {
  /** Micrometer's default max window in a PrometheusMeterRegistry: its step, one minute. */
  static final long MAX_WINDOW_MILLIS = 60_000;

  private static final int MAX_BUFFERS = 3;
  private static final Map<PrometheusRegistry, PrometheusHistograms> BY_REGISTRY = new WeakHashMap<>();

  private final CopyOnWriteArrayList<Series> series = new CopyOnWriteArrayList<>();
  /** Objects read by function meters, kept as long as the registry (Micrometer holds them weakly). */
  private final java.util.Set<Object> kept = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** The help text of each family, found when its first series is exported (guarded by this). */
  private final Map<String, String> helps = new java.util.HashMap<>();

  /** The collector of {@code registry}, or null when it is not a PrometheusMeterRegistry. */
  static PrometheusHistograms of(MeterRegistry registry) {
    if (!(registry instanceof PrometheusMeterRegistry)) {
      return null;
    }
    PrometheusRegistry prometheus = ((PrometheusMeterRegistry) registry).getPrometheusRegistry();
    synchronized (BY_REGISTRY) {
      PrometheusHistograms h = BY_REGISTRY.get(prometheus);
      if (h == null) {
        h = new PrometheusHistograms();
        prometheus.register(h);
        BY_REGISTRY.put(prometheus, h);
      }
      return h;
    }
  }

  /** Keeps {@code o} (read by a function meter) as long as this collector. */
  void keep(Object o) {
    kept.add(o);
  }

  /**
   * Exports, in place of {@code stand}, the histogram in cells {@code from} to {@code from +
   * bounds.length} of {@code row} (one per bound, then one above the last), its sum in cell {@code
   * sum} and its maximum in cell {@code max}; {@code nanos}: the values are nanoseconds exported
   * in seconds (a timer), else as they are. Removes {@code stand} from the registry; does nothing
   * if the registry denied it (a no-op meter, not in the registry).
   */
  void export(
      MeterRegistry registry,
      Meter stand,
      PerThreadCells cells,
      int row,
      int from,
      double[] bounds,
      int sum,
      int max,
      boolean nanos) {
    if (!registry.getMeters().contains(stand)) {
      return;
    }
    Meter.Id id = stand.getId();
    NamingConvention convention = registry.config().namingConvention();
    String name = id.getConventionName(convention);
    List<Tag> tags = id.getConventionTags(convention);
    List<String> keys = new ArrayList<>(tags.size());
    List<String> values = new ArrayList<>(tags.size());
    for (Tag t : tags) {
      keys.add(t.getKey());
      values.add(t.getValue());
    }
    String help;
    synchronized (this) {
      help = helps.computeIfAbsent(name, n -> help(registry, n, id));
    }
    registry.remove(stand);
    double[] le = new double[bounds.length];
    for (int i = 0; i < le.length; i++) {
      le[i] = nanos ? TimeUtils.nanosToUnit(bounds[i], TimeUnit.SECONDS) : bounds[i];
    }
    WindowMax window = null;
    for (Series s : series) { // a client's two durations read one row: one window for both
      if (s.window.cells == cells && s.window.row == row && s.window.index == max) {
        window = s.window;
      }
    }
    if (window == null) {
      window = new WindowMax(cells, row, max);
    }
    series.add(new Series(name, help, Labels.of(keys, values), cells, row, from, le, sum, window, nanos));
  }

  /**
   * The help text the registry gives the family {@code name} of {@code id} (a single space when
   * its descriptions are off), read from one scrape of that family while only the stand-in meter
   * makes it (called before any series of the family is exported from here).
   */
  private static String help(MeterRegistry registry, String name, Meter.Id id) {
    try {
      MetricSnapshots s = ((PrometheusMeterRegistry) registry).getPrometheusRegistry().scrape(name::equals);
      for (MetricSnapshot m : s) {
        String help = m.getMetadata().getHelp();
        if (help != null) {
          return help;
        }
      }
    } catch (RuntimeException e) {
      // fall back to the description
    }
    return id.getDescription() == null ? " " : id.getDescription();
  }

  @Override
  public MetricSnapshots collect() {
    long now = System.currentTimeMillis();
    Map<String, Map<Labels, Point>> families = new LinkedHashMap<>();
    Map<String, String> helpOf = new LinkedHashMap<>();
    for (Series s : series) {
      helpOf.putIfAbsent(s.name, s.help);
      Point p = families.computeIfAbsent(s.name, k -> new LinkedHashMap<>())
          .computeIfAbsent(s.labels, k -> new Point(s.le.length));
      s.readInto(p, now);
    }
    List<MetricSnapshot> out = new ArrayList<>(families.size() * 2);
    for (Map.Entry<String, Map<Labels, Point>> f : families.entrySet()) {
      String name = f.getKey();
      String help = helpOf.get(name);
      List<HistogramDataPointSnapshot> points = new ArrayList<>();
      List<GaugeDataPointSnapshot> maxima = new ArrayList<>();
      for (Map.Entry<Labels, Point> e : f.getValue().entrySet()) {
        Point p = e.getValue();
        points.add(
            new HistogramDataPointSnapshot(
                ClassicHistogramBuckets.of(p.upperBounds(), p.counts), p.sum, e.getKey(), Exemplars.EMPTY,
                p.created));
        maxima.add(new GaugeDataPointSnapshot(p.max, e.getKey(), null));
      }
      out.add(new HistogramSnapshot(false, new MetricMetadata(name, help, null), points));
      out.add(new GaugeSnapshot(new MetricMetadata(name + "_max", help, null), maxima));
    }
    return new MetricSnapshots(out);
  }

  /** One data point being summed from its series (one, or several with the same labels). */
  private static final class Point {
    double[] le;
    final long[] counts; // per bucket, not cumulative; the last is +Inf
    double sum;
    double max;
    long created;

    Point(int bounds) {
      counts = new long[bounds + 1];
    }

    double[] upperBounds() {
      double[] b = Arrays.copyOf(le, le.length + 1);
      b[le.length] = Double.POSITIVE_INFINITY;
      return b;
    }
  }

  /**
   * As Micrometer's TimeWindowMax: the largest value of the last {@link #MAX_WINDOW_MILLIS} ms or
   * so, taken from a cell at each read (a value taken is kept here for the window).
   */
  private static final class WindowMax {
    final PerThreadCells cells;
    final int row;
    final int index;
    /** The maxima of the last windows, newest first, and when the newest began (guarded by this). */
    private final long[] maxima = new long[MAX_BUFFERS];
    private long windowStart = System.currentTimeMillis();

    WindowMax(PerThreadCells cells, int row, int index) {
      this.cells = cells;
      this.row = row;
      this.index = index;
    }

    synchronized long poll(long now) {
      long step = MAX_WINDOW_MILLIS / MAX_BUFFERS;
      if (now - windowStart >= MAX_WINDOW_MILLIS) {
        Arrays.fill(maxima, 0);
        windowStart = now;
      }
      while (now - windowStart >= step) {
        System.arraycopy(maxima, 0, maxima, 1, MAX_BUFFERS - 1);
        maxima[0] = 0;
        windowStart += step;
      }
      maxima[0] = Math.max(maxima[0], cells.takeMax(row, index));
      long result = 0;
      for (long m : maxima) {
        result = Math.max(result, m);
      }
      return result;
    }
  }

  /** One exported histogram: where its counts are, and its name, labels and help. */
  private static final class Series {
    final String name;
    final String help;
    final Labels labels;
    final PerThreadCells cells;
    final int row;
    final int from;
    final double[] le;
    final int sum;
    final WindowMax window;
    final boolean nanos;
    final long created = System.currentTimeMillis();

    Series(
        String name, String help, Labels labels, PerThreadCells cells, int row, int from, double[] le, int sum,
        WindowMax window, boolean nanos) {
      this.name = name;
      this.help = help;
      this.labels = labels;
      this.cells = cells;
      this.row = row;
      this.from = from;
      this.le = le;
      this.sum = sum;
      this.window = window;
      this.nanos = nanos;
    }

    void readInto(Point p, long now) {
      p.le = le;
      p.created = p.created == 0 ? created : Math.min(p.created, created);
      cells.sumInto(row, from, p.counts);
      long total = cells.sum(row, sum);
      p.sum += nanos ? TimeUtils.nanosToUnit(total, TimeUnit.SECONDS) : total;
      long m = window.poll(now);
      p.max = Math.max(p.max, nanos ? TimeUtils.nanosToUnit(m, TimeUnit.SECONDS) : m);
    }
  }
}
