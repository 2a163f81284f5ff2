package io.sluice.cli;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** A small {@code --name value} / {@code --flag} parser that rejects what it does not know. */
final class Args {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> flags = new HashSet<>();

  /**
   * @param options names that take a value
   * @param booleans names that are flags
   */
  static Args parse(String[] argv, int from, Set<String> options, Set<String> booleans) {
    Args a = new Args();
    for (int i = from; i < argv.length; i++) {
      String arg = argv[i];
      if (!arg.startsWith("--")) {
        throw new UsageException("unexpected argument: " + arg);
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (booleans.contains(name) && value == null) {
        a.flags.add(name);
      } else if (options.contains(name)) {
        if (value == null) {
          if (i + 1 >= argv.length) {
            throw new UsageException("--" + name + " needs a value");
          }
          value = argv[++i];
        }
        a.values.put(name, value);
      } else {
        throw new UsageException("unknown option --" + name);
      }
    }
    return a;
  }

  String get(String name, String dflt) {
    return values.getOrDefault(name, dflt);
  }

  int getInt(String name, int dflt) {
    String v = values.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs a number, got '" + v + "'");
    }
  }

  boolean flag(String name) {
    return flags.contains(name);
  }

  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
