package io.sluice.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Shrinks a failing input while it keeps failing the same way, for a readable reproducer.
 * Skipped unless {@code -Dsluice.fuzz.minimize=} names the input file:
 *
 * <pre>
 * ./mvnw -pl sluice-fuzz test -Dtest=MinimizeTest -Dsluice.fuzz.minimize=path/to/crash-...
 * </pre>
 *
 * <p>It drops whole length-prefixed frames first, then runs of bytes (delta debugging), then
 * tries to zero the configuration bits and the read size. "The same way" means the first failed
 * check, with numbers and frame details blanked out. The result is printed as hex and written
 * next to the input as {@code <name>.min}.
 */
class MinimizeTest {
  static {
    LogCapture.install();
  }

  /** The first failed check of {@code input} with details blanked, or null if it passes. */
  static String signature(byte[] input) {
    try {
      InboundHarness.run(input, false);
      return null;
    } catch (AssertionError e) {
      String m = String.valueOf(e.getMessage());
      int at = m.indexOf(" - ");
      String first = at < 0 ? m : m.substring(at + 3);
      int nl = first.indexOf('\n');
      if (nl >= 0) {
        first = first.substring(0, nl);
      }
      int sent = first.indexOf(" (sent: ");
      if (sent >= 0) {
        first = first.substring(0, sent);
      }
      return first.replaceAll("\\{[^}]*\\}", "{}").replaceAll("[0-9]+", "N");
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "sluice.fuzz.minimize", matches = ".+")
  void minimize() throws IOException {
    Path file = Path.of(System.getProperty("sluice.fuzz.minimize"));
    if (!file.isAbsolute() && !Files.exists(file)) {
      file = Path.of(System.getProperty("basedir", ".")).resolve(file);
    }
    byte[] in = Files.readAllBytes(file);
    String sig = signature(in);
    if (sig == null) {
      throw new AssertionError("the input does not fail: nothing to minimize");
    }
    System.out.println("sluice-fuzz: minimizing " + in.length + " bytes failing with: " + sig);
    in = dropFrames(in, sig);
    in = ddmin(in, sig);
    in = simplifyHeader(in, sig);
    in = dropFrames(in, sig);
    Path out = file.resolveSibling(file.getFileName() + ".min");
    Files.write(out, in);
    System.out.println(
        "sluice-fuzz: minimized to " + in.length + " bytes: " + HexFormat.of().formatHex(in));
    System.out.println("sluice-fuzz: written to " + out.toAbsolutePath());
  }

  private static byte[] dropFrames(byte[] in, String sig) {
    boolean progress = true;
    while (progress) {
      progress = false;
      for (int start = 2; start + 3 <= in.length; ) {
        int length =
            ((in[start] & 0xff) << 16) | ((in[start + 1] & 0xff) << 8) | (in[start + 2] & 0xff);
        int end = Math.min(in.length, start + 3 + length);
        byte[] candidate = cut(in, start, end);
        if (sig.equals(signature(candidate))) {
          in = candidate;
          progress = true;
        } else {
          start = end;
        }
      }
    }
    return in;
  }

  private static byte[] ddmin(byte[] in, String sig) {
    for (int chunk = Math.max(1, (in.length - 2) / 2); chunk >= 1; chunk /= 2) {
      boolean progress = true;
      while (progress) {
        progress = false;
        for (int start = 2; start < in.length; ) {
          byte[] candidate = cut(in, start, Math.min(in.length, start + chunk));
          if (sig.equals(signature(candidate))) {
            in = candidate;
            progress = true;
          } else {
            start += chunk;
          }
        }
      }
    }
    return in;
  }

  private static byte[] simplifyHeader(byte[] in, String sig) {
    if (in.length < 2) {
      return in;
    }
    for (int bit = 7; bit >= 2; bit--) {
      byte[] c = in.clone();
      c[0] &= (byte) ~(1 << bit);
      if (c[0] != in[0] && sig.equals(signature(c))) {
        in = c;
      }
    }
    byte[] c = in.clone();
    c[1] = 0;
    if (c[1] != in[1] && sig.equals(signature(c))) {
      in = c;
    }
    return in;
  }

  private static byte[] cut(byte[] in, int from, int to) {
    byte[] out = Arrays.copyOf(in, in.length - (to - from));
    System.arraycopy(in, to, out, from, in.length - to);
    return out;
  }
}
