package io.sluice.benchmarks.many;

import io.sluice.benchmarks.harness.Args;
import java.util.List;
import java.util.Set;

/**
 * The command line of the many-connections mode, checked: {@code ./sluice bench --connections C
 * [--concurrency N] [--response-size B] [--warmup S] [--seconds S]} (no {@code --scale}: with it,
 * {@code --connections} belongs to the scale mode). Without {@code --concurrency} and {@code
 * --response-size} it runs {@link #ISSUE_SHAPES}; with one of them, the other takes its default.
 */
public record ManyOptions(int connections, List<Shape> shapes, int warmup, int seconds) {

  /** One row of the mode: {@code concurrency} calls in flight in all, answers of {@code responseSize} bytes. */
  public record Shape(int concurrency, int responseSize) {}

  /** The impls every row runs, in this order. */
  public static final List<String> IMPLS = List.of("sluice", "sluice-rpc", "grpc-java");

  /** The options this mode takes (all with a value). */
  public static final Set<String> OPTIONS =
      Set.of("connections", "concurrency", "response-size", "warmup", "seconds");

  /** Issue 24 item 6: concurrency 32 and 512 with 16-byte answers, 16 with 131,072-byte answers. */
  public static final List<Shape> ISSUE_SHAPES =
      List.of(new Shape(32, 16), new Shape(512, 16), new Shape(16, 131_072));

  /** Bytes of every request (a protobuf {@code bytes} field of this length for RPC and gRPC). */
  public static final int REQUEST_SIZE = 16;

  static final int DEFAULT_CONCURRENCY = 32;
  static final int DEFAULT_RESPONSE_SIZE = 16;

  /** Most connections: each is a socket on both sides, all on one event loop per side. */
  public static final int MAX_CONNECTIONS = 1024;

  /** Most calls in flight in all. */
  public static final int MAX_CONCURRENCY = 65_536;

  /** Most calls in flight on one connection: Sluice's default {@code maxActiveStreams}. */
  public static final int MAX_PER_CONNECTION = 8192;

  /** Largest answer: well under Sluice's 4 MiB reassembly limit and gRPC's 4 MiB message limit. */
  public static final int MAX_RESPONSE_SIZE = 1 << 20;

  /** Most answer bytes in flight at once (concurrency times answer size), for 1 GiB heaps. */
  public static final long MAX_BYTES_IN_FLIGHT = 256L << 20;

  /**
   * Whether the front door's {@code argv} asks for this mode: {@code --connections}, {@code
   * --concurrency} or {@code --response-size} without {@code --scale} / {@code --scale-sweep}
   * (which the caller has checked first).
   */
  public static boolean handles(String[] argv, int from) {
    for (int i = from; i < argv.length; i++) {
      if (argv[i].equals("--connections") || argv[i].equals("--concurrency")
          || argv[i].equals("--response-size")) {
        return true;
      }
    }
    return false;
  }

  /**
   * For the scale modes: {@code --concurrency} and {@code --response-size} are this mode's, so
   * their presence beside {@code --scale} is a contradiction, said as such.
   */
  public static void rejectWithScale(String[] argv, int from) {
    for (int i = from; i < argv.length; i++) {
      if (argv[i].equals("--concurrency") || argv[i].equals("--response-size")) {
        throw new Args.UsageException(argv[i] + " belongs to the many-connections mode"
            + " (--connections without --scale); --scale and --scale-sweep do not take it");
      }
    }
  }

  /**
   * Parses {@code argv[from..]}; {@code scaleNames} are the scale modes' option names (named in
   * the error when one is given without {@code --scale}). A {@link Args.UsageException} says what
   * is wrong.
   */
  public static ManyOptions parse(String[] argv, int from, Set<String> scaleNames) {
    Args a = checkNames(argv, from, scaleNames);
    if (!a.has("connections")) {
      throw new Args.UsageException(
          "--concurrency and --response-size go with --connections C (the many-connections mode)");
    }
    int connections = a.getInt("connections", 16, 1, MAX_CONNECTIONS);
    List<Shape> shapes =
        a.has("concurrency") || a.has("response-size")
            ? List.of(new Shape(
                a.getInt("concurrency", DEFAULT_CONCURRENCY, 1, MAX_CONCURRENCY),
                a.getInt("response-size", DEFAULT_RESPONSE_SIZE, 0, MAX_RESPONSE_SIZE)))
            : ISSUE_SHAPES;
    boolean given = a.has("concurrency");
    for (Shape s : shapes) {
      check(s, connections, given);
    }
    return new ManyOptions(
        connections, shapes, a.getInt("warmup", 30, 0, 3600), a.getInt("seconds", 10, 1, 3600));
  }

  /**
   * The names and arity of this mode's options, no values: a {@link Args.UsageException} names an
   * option this mode does not take (a scale option among {@code scaleNames} said as such).
   */
  public static Args checkNames(String[] argv, int from, Set<String> scaleNames) {
    for (int i = from; i < argv.length; i++) {
      String arg = argv[i];
      if (!arg.startsWith("--")) {
        continue; // a value, or a stray word Args.parse reports
      }
      String name = arg.substring(2);
      if (OPTIONS.contains(name)) {
        i++;
      } else if (scaleNames.contains(name)) {
        throw new Args.UsageException("--" + name + " goes with --scale; without --scale,"
            + " --connections runs the many-connections mode (sluice, sluice-rpc and grpc-java),"
            + " which takes --connections, --concurrency, --response-size, --warmup and --seconds");
      } else {
        throw new Args.UsageException("--" + name + " does not go with --connections: the"
            + " many-connections mode takes --connections, --concurrency, --response-size,"
            + " --warmup and --seconds (add --scale for the scale mode)");
      }
    }
    return Args.parse(argv, from, OPTIONS, Set.of());
  }

  private static void check(Shape s, int connections, boolean concurrencyGiven) {
    String which = concurrencyGiven ? "" : " (a default shape; give --concurrency)";
    if (s.concurrency() < connections) {
      throw new Args.UsageException("--concurrency " + s.concurrency() + which
          + " is less than --connections " + connections + ": every connection needs at least one"
          + " call in flight");
    }
    int perConnection = (s.concurrency() + connections - 1) / connections;
    if (perConnection > MAX_PER_CONNECTION) {
      throw new Args.UsageException("--concurrency " + s.concurrency() + " over " + connections
          + " connections puts " + perConnection + " calls on one connection; at most "
          + MAX_PER_CONNECTION + " (Sluice's default maxActiveStreams): give more --connections");
    }
    if ((long) s.concurrency() * s.responseSize() > MAX_BYTES_IN_FLIGHT) {
      throw new Args.UsageException("--concurrency " + s.concurrency() + " times --response-size "
          + s.responseSize() + " is more than " + (MAX_BYTES_IN_FLIGHT >> 20)
          + " MiB of answers in flight (the children have 1 GiB heaps)");
    }
  }

  /**
   * {@code calls} spread over {@code connections} as evenly as whole calls allow: the first {@code
   * calls % connections} connections carry one more.
   */
  public static int[] spread(int calls, int connections) {
    if (connections <= 0 || calls < connections) {
      throw new IllegalArgumentException(
          calls + " calls cannot be spread over " + connections + " connections");
    }
    int[] out = new int[connections];
    for (int i = 0; i < connections; i++) {
      out[i] = calls / connections + (i < calls % connections ? 1 : 0);
    }
    return out;
  }
}
