package io.sluice.benchmarks.many;

import io.sluice.benchmarks.grpc.Failures;
import java.util.concurrent.Executor;
import org.HdrHistogram.Recorder;

/**
 * What a many-connections client records: the duration of every call that brought an answer of the
 * expected size (HdrHistogram {@link Recorder}, 3 digits, nanoseconds), and the calls that failed
 * or brought an answer of another size. Thread-safe; the clients call it from their event loop.
 * The first few failures are printed to stderr, the rest only counted.
 */
public final class CallStats {
  private final int expectedSize;
  private final Recorder latencies = new Recorder(3);
  private final Failures failures = new Failures();
  private volatile boolean answered;

  /** Answers must be {@code expectedSize} bytes long (the data, without any encoding). */
  public CallStats(int expectedSize) {
    this.expectedSize = expectedSize;
  }

  /**
   * A call ended with an answer of {@code size} bytes after {@code nanos}: recorded, or counted as
   * failed when the size is not the one asked for.
   */
  public void completed(long nanos, int size) {
    if (size == expectedSize) {
      latencies.recordValue(nanos);
      if (!answered) {
        answered = true;
      }
    } else {
      failed(new IllegalStateException(
          "answer of " + size + " bytes, expected " + expectedSize));
    }
  }

  /** A call failed. */
  public void failed(Throwable cause) {
    failures.failed(cause);
  }

  /**
   * Runs {@code next} on {@code loop} a millisecond from now: the next call after a failed one
   * (never at once, so that a call failing at once does not recurse or spin).
   */
  public void later(Executor loop, Runnable next) {
    failures.later(() -> loop.execute(next));
  }

  /** The recorder of call durations (its interval histograms are taken by the reporting thread). */
  Recorder latencies() {
    return latencies;
  }

  /** Whether a call has brought an answer of the expected size yet. */
  boolean answered() {
    return answered;
  }

  /** Calls failed so far. */
  long failedCount() {
    return failures.count();
  }
}
