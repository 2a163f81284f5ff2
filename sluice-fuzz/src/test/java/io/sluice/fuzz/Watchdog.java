package io.sluice.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;

/**
 * Bounds the time one fuzz input may take. The harness drives a single-threaded embedded event
 * loop; if the engine loops forever on some input, nothing inside that thread can stop it. This
 * daemon thread notices an input running longer than {@code -Dsluice.fuzz.hangSeconds} (default
 * 60), prints the input and the stuck thread's stack, saves the input under {@code target/} and
 * halts the JVM, so a hang fails the run loudly instead of stalling CI. (In fuzzing mode, fuzz.sh
 * passes libFuzzer a shorter {@code -timeout}, so libFuzzer reports and saves the hang first.)
 */
final class Watchdog {
  static final long LIMIT_NANOS =
      Long.getLong("sluice.fuzz.hangSeconds", 60L) * 1_000_000_000L;

  private static volatile Thread worker;
  private static volatile byte[] input;
  private static volatile long startedNanos;
  private static volatile boolean running;
  private static Thread thread;

  private Watchdog() {}

  static synchronized void begin(byte[] in) {
    if (thread == null) {
      thread = new Thread(Watchdog::watch, "sluice-fuzz-watchdog");
      thread.setDaemon(true);
      thread.start();
    }
    worker = Thread.currentThread();
    input = in;
    startedNanos = System.nanoTime();
    running = true;
  }

  static void end() {
    running = false;
  }

  private static void watch() {
    for (; ; ) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
      if (running && System.nanoTime() - startedNanos > LIMIT_NANOS) {
        byte[] in = input;
        Thread w = worker;
        StringBuilder s = new StringBuilder();
        s.append("sluice-fuzz: HANG: one input ran longer than ")
            .append(LIMIT_NANOS / 1_000_000_000L)
            .append(" s. Input (hex): ")
            .append(HexFormat.of().formatHex(in))
            .append(System.lineSeparator())
            .append("Stack of ")
            .append(w.getName())
            .append(':')
            .append(System.lineSeparator());
        for (StackTraceElement e : w.getStackTrace()) {
          s.append("    at ").append(e).append(System.lineSeparator());
        }
        try {
          Path dir = Paths.get("target");
          Files.createDirectories(dir);
          Path file = dir.resolve("sluice-fuzz-hang-" + Integer.toHexString(java.util.Arrays.hashCode(in)));
          Files.write(file, in);
          s.append("Input saved to ").append(file.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
          s.append("(could not save the input: ").append(e).append(')');
        }
        System.err.println(s);
        System.err.flush();
        Runtime.getRuntime().halt(86);
      }
    }
  }
}
