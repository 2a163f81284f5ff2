package io.sluice.transport.netty.internal;

import io.sluice.transport.netty.IoMode;
import java.util.List;
import java.util.function.Function;

/**
 * The choice of the JVM's default I/O engine, kept apart from netty so tests can feed it any
 * availability (a native library that fails to load) and any system property.
 */
final class IoSelection {
  private IoSelection() {}

  /**
   * The engine chosen. {@code named}: {@code -Dsluice.io} (or {@code -Dsluice.transport.nio})
   * named an engine or an unknown value rather than leaving it to AUTO, so a fallback is something
   * the user did not ask for: a warning. {@code fallback}: the one line saying why the JVM runs
   * another engine than asked, or that AUTO found no native engine (then short: that is expected
   * wherever netty's native jars are absent); null when there is nothing to say. {@code causes}:
   * why the native engines cannot load, for the debug log, when AUTO's line leaves them out.
   */
  record Choice(IoMode mode, boolean named, String fallback, String causes) {}

  /** The first engine of {@code order} that {@code probe} finds available (null cause), or null. */
  static IoMode firstAvailable(List<IoMode> order, Function<IoMode, Throwable> probe) {
    for (IoMode m : order) {
      if (probe.apply(m) == null) {
        return m;
      }
    }
    return null;
  }

  /**
   * The default engine for the values of {@code -Dsluice.io} ({@code property}, null when unset)
   * and {@code -Dsluice.transport.nio} ({@code legacyNio}). Never fails: a property naming an
   * engine that cannot load, or naming nothing known, falls back with a message.
   */
  static Choice choose(
      String property, boolean legacyNio, List<IoMode> order, Function<IoMode, Throwable> probe) {
    IoMode asked;
    String badValue = null;
    if (property == null || property.isBlank()) {
      asked = legacyNio ? IoMode.NIO : IoMode.AUTO;
    } else {
      try {
        asked = IoMode.parse(property);
      } catch (IllegalArgumentException e) {
        asked = IoMode.AUTO;
        badValue = property;
      }
    }
    boolean named = asked != IoMode.AUTO || badValue != null;
    if (asked == IoMode.AUTO) {
      IoMode m = firstAvailable(order, probe);
      if (m != null) {
        return new Choice(m, named, badValue == null ? null : ignored(badValue, m), null);
      }
      StringBuilder why = new StringBuilder("native I/O cannot load here (");
      StringBuilder engines = new StringBuilder();
      for (int i = 0; i < order.size(); i++) {
        IoMode n = order.get(i);
        why.append(i == 0 ? "" : "; ").append(n.label()).append(": ").append(describe(probe.apply(n)));
        engines.append(i == 0 ? "" : ", ").append(n.label());
      }
      why.append(")");
      if (badValue != null) {
        return new Choice(IoMode.NIO, true, ignored(badValue, IoMode.NIO) + "; " + why + ", using nio", null);
      }
      return new Choice(
          IoMode.NIO, false, "no native I/O (" + engines + ") loads here, using nio", why.toString());
    }
    Throwable cause = probe.apply(asked);
    if (cause == null) {
      return new Choice(asked, named, null, null);
    }
    return new Choice(
        IoMode.NIO,
        true,
        "-Dsluice.io=" + property + " asked for " + asked.label() + ", which cannot load here ("
            + describe(cause) + "), using nio",
        null);
  }

  private static String ignored(String value, IoMode used) {
    return "-Dsluice.io=" + value + " is not auto, nio, epoll or io_uring; ignored, using "
        + used.label();
  }

  /** A cause on one line: its class and message, and the root cause's when that differs. */
  static String describe(Throwable t) {
    if (t == null) {
      return "available";
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String s = one(t);
    return root == t ? s : s + " <- " + one(root);
  }

  private static String one(Throwable t) {
    String m = t.getMessage();
    String s = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    return s.replaceAll("\\s+", " ").strip(); // one log line, whatever the message holds
  }
}
