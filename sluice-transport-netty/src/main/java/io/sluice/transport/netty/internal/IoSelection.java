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

  /** The engine chosen and, when it is a fallback, the one line that says why (else null). */
  record Choice(IoMode mode, String fallback) {}

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
    if (asked == IoMode.AUTO) {
      IoMode m = firstAvailable(order, probe);
      if (m != null) {
        return new Choice(m, badValue == null ? null : ignored(badValue, m));
      }
      StringBuilder why = new StringBuilder();
      if (badValue != null) {
        why.append(ignored(badValue, IoMode.NIO)).append("; ");
      }
      why.append("native I/O cannot load here (");
      for (int i = 0; i < order.size(); i++) {
        IoMode n = order.get(i);
        why.append(i == 0 ? "" : "; ").append(n.label()).append(": ").append(describe(probe.apply(n)));
      }
      return new Choice(IoMode.NIO, why.append("), using nio").toString());
    }
    Throwable cause = probe.apply(asked);
    if (cause == null) {
      return new Choice(asked, null);
    }
    return new Choice(
        IoMode.NIO,
        "-Dsluice.io=" + property + " asked for " + asked.label() + ", which cannot load here ("
            + describe(cause) + "), using nio");
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
