package io.sluice.benchmarks.harness;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** {@code --name value} options and {@code --flag} switches, checked against the allowed names. */
public final class Args {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> flags = new HashSet<>();

  /** Thrown for a bad command line; the message says what is wrong. */
  public static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
      super(message);
    }
  }

  private Args() {}

  /** Parses {@code argv[from..]}; unknown names are a {@link UsageException}. */
  public static Args parse(String[] argv, int from, Set<String> options, Set<String> switches) {
    Args a = new Args();
    for (int i = from; i < argv.length; i++) {
      String arg = argv[i];
      if (!arg.startsWith("--")) {
        throw new UsageException("unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      if (switches.contains(name)) {
        a.flags.add(name);
      } else if (options.contains(name)) {
        if (i + 1 >= argv.length) {
          throw new UsageException("--" + name + " needs a value");
        }
        a.values.put(name, argv[++i]);
      } else {
        throw new UsageException("unknown option --" + name);
      }
    }
    return a;
  }

  public String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public boolean flag(String name) {
    return flags.contains(name);
  }

  /** An integer option within {@code [min, max]}. */
  public int getInt(String name, int fallback, int min, int max) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be a whole number, got '" + v + "'");
    }
    if (n < min || n > max) {
      throw new UsageException("--" + name + " must be in " + min + ".." + max + ", got " + n);
    }
    return n;
  }
}
