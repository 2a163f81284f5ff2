package io.sluice.benchmarks.scale;

import io.sluice.benchmarks.harness.Args;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@code ./sluice bench --scale} and {@code --scale-sweep}, checked: {@code
 * --connections C --streams-per-connection S --rate R [--hold SECONDS] [--ramp-steps N] [--impl
 * sluice|rsocket-java] [--heap-histo]}.
 */
record ScaleOptions(
    String impl,
    int connections,
    int streamsPerConnection,
    double rate,
    int holdSeconds,
    int rampSteps,
    boolean heapHisto,
    boolean sweep,
    String svg) {

  /** The impls whose server a scale run can start (the client is always Sluice's). */
  static final List<String> IMPLS = List.of("sluice", "rsocket-java");

  /** Options of the scale modes that take a value. */
  static final Set<String> OPTIONS =
      Set.of("impl", "connections", "streams-per-connection", "rate", "hold", "ramp-steps", "svg");

  /** Their flags. */
  static final Set<String> FLAGS = Set.of("scale", "scale-sweep", "heap-histo");

  /** Most connections a run opens: each side needs a file descriptor per connection. */
  static final int MAX_CONNECTIONS = 100_000;

  /**
   * Sluice's default limit of live streams per connection ({@code
   * ConnectionOptions.maxActiveStreams}); more would be rejected by a server on defaults.
   */
  static final int MAX_STREAMS_PER_CONNECTION = 8192;

  /** Parses {@code argv[from..]}; a {@link Args.UsageException} says what is wrong. */
  static ScaleOptions parse(String[] argv, int from) {
    Args a = Args.parse(argv, from, OPTIONS, FLAGS);
    boolean sweep = a.flag("scale-sweep");
    if (sweep == a.flag("scale")) {
      throw new Args.UsageException("give one of --scale and --scale-sweep");
    }
    String impl = a.get("impl", "sluice");
    if (!IMPLS.contains(impl)) {
      throw new Args.UsageException("--impl with --scale is one of " + IMPLS + ", got '" + impl + "'");
    }
    if (!sweep && !a.has("connections")) {
      throw new Args.UsageException("--scale needs --connections C");
    }
    if (sweep && (a.has("connections") || a.has("streams-per-connection") || a.has("ramp-steps"))) {
      throw new Args.UsageException(
          "--scale-sweep picks connections and streams itself: no --connections,"
              + " --streams-per-connection or --ramp-steps");
    }
    return new ScaleOptions(
        impl,
        a.getInt("connections", 1, 1, MAX_CONNECTIONS),
        a.getInt("streams-per-connection", 1, 0, MAX_STREAMS_PER_CONNECTION),
        parseRate(a.get("rate", "1")),
        a.getInt("hold", sweep ? 10 : 30, 1, 3600),
        a.getInt("ramp-steps", 4, 1, 100),
        a.flag("heap-histo"),
        sweep,
        a.get("svg", "docs/img/scale-sweep.svg"));
  }

  /** A rate in messages per second per stream: a number in (0, 100000]. */
  static double parseRate(String value) {
    double r;
    try {
      r = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new Args.UsageException("--rate must be a number of messages per second, got '" + value + "'");
    }
    if (!(r > 0 && r <= 100_000)) {
      throw new Args.UsageException("--rate must be in (0, 100000] messages per second, got " + value);
    }
    return r;
  }

  /** The connections at each step of the ramp: C*i/N for i = 1..N, at least 1, no repeats. */
  static List<Integer> rampConnections(int connections, int steps) {
    List<Integer> out = new ArrayList<>();
    for (int i = 1; i <= steps; i++) {
      int c = Math.max(1, (int) ((long) connections * i / steps));
      if (out.isEmpty() || out.get(out.size() - 1) < c) {
        out.add(c);
      }
    }
    return out;
  }
}
