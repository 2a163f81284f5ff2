package io.sluice.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The messages of the latency table's request-stream ({@code ./sluice bench --latency}, interaction
 * {@link Spec#TEXTS24}): {@link #COUNT} random printable-ASCII texts of 1 to {@link #MAX_CHARS}
 * characters, drawn once from {@link Random} with a fixed seed, so every run and every process,
 * server or client, Sluice or gRPC, sends the very same texts ({@code java.util.Random}'s algorithm
 * is part of its specification).
 */
public final class StreamTexts {
  /** Messages per request-stream. */
  public static final int COUNT = Spec.STREAM24;

  /** The longest text, in characters (= bytes: ASCII). */
  public static final int MAX_CHARS = 100;

  static final long SEED = 21L;

  private static final List<String> TEXTS = make(SEED);

  private StreamTexts() {}

  /** The {@link #COUNT} texts, the same in every run. */
  public static List<String> texts() {
    return TEXTS;
  }

  static List<String> make(long seed) {
    Random random = new Random(seed);
    List<String> texts = new ArrayList<>(COUNT);
    for (int i = 0; i < COUNT; i++) {
      char[] c = new char[1 + random.nextInt(MAX_CHARS)];
      for (int j = 0; j < c.length; j++) {
        c[j] = (char) (' ' + random.nextInt('~' - ' ' + 1)); // 0x20..0x7e
      }
      texts.add(new String(c));
    }
    return List.copyOf(texts);
  }
}
