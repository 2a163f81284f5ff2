package io.sluice.benchmarks.harness;

/**
 * One implementation under test, set up the way its own documentation recommends for throughput.
 * The server half runs in one process and the client half in another; both bind or connect to
 * 127.0.0.1 only.
 *
 * <p>Interactions: {@code fnf}, {@code rr}, {@code stream} (one unending request-stream),
 * {@code channel} (one unending channel; the server echoes every message), and for latency mode
 * {@code stream24} (request-streams of {@link Spec#STREAM24} messages) and {@link Spec#TEXTS24}
 * (request-streams of the {@link StreamTexts}; Sluice and grpc-java only).
 */
public interface Impl {
  /**
   * Starts the server on 127.0.0.1 with an ephemeral port and returns the port. For {@code fnf} the
   * server counts what it receives into {@code fnfReceived}.
   */
  int serve(String interaction, int size, Counter fnfReceived) throws Exception;

  /** Name prefix of the server's event-loop thread(s), whose allocations are reported per message. */
  String serverLoopPrefix();

  /**
   * Starts unending load over one connection and returns at once: {@code window} requests
   * outstanding for {@code rr} and {@code fnf}; {@code received} counts the messages the client
   * receives ({@code fnf}: nothing, the server counts).
   */
  void load(int port, String interaction, int size, int window, Counter received) throws Exception;

  /**
   * Starts a closed loop with {@code concurrency} operations outstanding ({@code rr}: one
   * request-response; {@code stream24}, {@code texts24}: one request-stream until its completion),
   * each timed from start to completion into {@code sink}, and returns at once.
   */
  void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception;

  /**
   * Where {@link #load} times each of its operations (nanoseconds), or null (the default) when it
   * does not: the client then reports their median and 99th percentile between {@code MARK} and
   * {@code REPORT}.
   */
  default org.HdrHistogram.Recorder loadLatencies() {
    return null;
  }

  /**
   * Operations of {@link #load} that failed so far (each failed one is followed by a new one, so
   * the load goes on), reported with {@link #loadLatencies()}; 0 by default.
   */
  default long loadFailures() {
    return 0;
  }

  /** Receives the duration of each completed operation; thread-safe. */
  interface LatencySink {
    void record(long nanos);
  }
}
