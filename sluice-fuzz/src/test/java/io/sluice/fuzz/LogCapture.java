package io.sluice.fuzz;

import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records WARN and ERROR log events of Sluice's classes. The engine turns a failure inside its own
 * code into a connection error and a warning ("Unexpected failure handling ..."), and swallows
 * failures of queued operations and callbacks with a warning: for the fuzzer each of those is a
 * finding, so the fuzz target fails when one was logged while it ran an input.
 *
 * <p>Sluice logs through netty's {@link InternalLoggerFactory}; {@link #install()} points it at
 * java.util.logging, whose records can be captured in process. It must run before any Sluice class
 * that logs is initialised (each keeps its logger in a static field).
 */
final class LogCapture {
  private LogCapture() {}

  /** Kept strongly: java.util.logging holds loggers weakly. */
  private static final Logger SLUICE = Logger.getLogger("io.sluice");

  /**
   * netty's pipeline warns when a handler's exceptionCaught throws or an exception reaches the
   * tail of the pipeline: for an embedded channel with the Sluice transport, both mean an engine
   * failure that escaped. (Leak reports come from io.netty.util and are LeakCheckExtension's.)
   */
  private static final Logger NETTY_CHANNEL = Logger.getLogger("io.netty.channel");

  private static final List<LogRecord> RECORDS = new ArrayList<>();
  private static boolean installed;

  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    Handler recorder =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
              synchronized (RECORDS) {
                RECORDS.add(record);
              }
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    for (Logger l : new Logger[] {SLUICE, NETTY_CHANNEL}) {
      l.setLevel(Level.WARNING);
      l.setUseParentHandlers(false); // reported with the finding instead of on stderr
      l.addHandler(recorder);
    }
  }

  /** Returns and clears what was recorded. */
  static List<LogRecord> take() {
    synchronized (RECORDS) {
      List<LogRecord> out = new ArrayList<>(RECORDS);
      RECORDS.clear();
      return out;
    }
  }
}
