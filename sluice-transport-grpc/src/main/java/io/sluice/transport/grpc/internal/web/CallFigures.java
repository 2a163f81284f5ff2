package io.sluice.transport.grpc.internal.web;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.ConsoleFigures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The console's own figures, until a metrics registry gives better ones: an {@link
 * RpcInstrumentation} on the server's calls (gRPC, gRPC-Web and JSON alike) that counts calls open
 * and ended per method, calls ended per second over the last {@value #WINDOW_SECONDS} seconds, and
 * the 99th percentile of the last {@value #SAMPLES} latencies of each method; connections from the
 * server's own count.
 *
 * <p>Only servers that asked for the console pay for it: a few adders per call, and a short lock
 * per method when a call ends (the latency ring and the per-second buckets). Methods are known
 * ones only (calls to unknown methods fold into one entry), so the map stays bounded by the
 * registry. Thread-safe: calls end on many event loops, snapshots are read on another.
 */
final class CallFigures implements RpcInstrumentation, ConsoleFigures {
  static final int WINDOW_SECONDS = 5;
  static final int SAMPLES = 1024;
  private static final String UNKNOWN = "(unknown method)";

  private final ConcurrentHashMap<String, PerMethod> methods = new ConcurrentHashMap<>();
  private final LongAdder open = new LongAdder();
  private volatile IntSupplier connections = () -> -1;
  /** Nanoseconds, as {@link System#nanoTime()}: a test passes its own. */
  private final LongSupplier clock;

  CallFigures() {
    this(System::nanoTime);
  }

  CallFigures(LongSupplier clock) {
    this.clock = clock;
  }

  void countConnections(IntSupplier connections) {
    this.connections = connections;
  }

  @Override
  public CallObserver onCallStart(CallMetadata metadata, MethodDescriptor<?, ?> method) {
    PerMethod m = methods.computeIfAbsent(method == null ? UNKNOWN : method.fullName(), k -> new PerMethod());
    open.increment();
    return new CallObserver() {
      private boolean ended;

      /** The console counts ends and durations: no clock read for a first response. */
      @Override
      public boolean observesFirstResponse() {
        return false;
      }

      @Override
      public void onEnd(Status status, long nanosSinceStart) {
        if (!ended) {
          ended = true;
          open.decrement();
          m.ended(status.isOk(), nanosSinceStart, clock.getAsLong());
        }
      }
    };
  }

  @Override
  public Snapshot snapshot() {
    long now = clock.getAsLong();
    List<MethodFigures> out = new ArrayList<>();
    double total = 0;
    for (var e : methods.entrySet()) {
      MethodFigures f = e.getValue().figures(e.getKey(), now);
      total += f.callsPerSecond();
      out.add(f);
    }
    out.sort((a, b) -> a.method().compareTo(b.method()));
    return new Snapshot(
        "the console's own counts (RpcInstrumentation)", connections.getAsInt(), Math.max(0, open.sum()), total, out);
  }

  /** One method's counts. */
  private static final class PerMethod {
    private final LongAdder calls = new LongAdder();
    private final LongAdder failures = new LongAdder();
    // Guarded by this: the latency ring and the per-second buckets of the window.
    private final long[] latencies = new long[SAMPLES];
    private int samples;
    private int next;
    private final long[] bucketSecond = new long[WINDOW_SECONDS + 1];
    private final long[] bucketCount = new long[WINDOW_SECONDS + 1];

    void ended(boolean ok, long nanos, long now) {
      calls.increment();
      if (!ok) {
        failures.increment();
      }
      long second = Math.floorDiv(now, 1_000_000_000L); // nanoTime may be negative
      synchronized (this) {
        latencies[next] = nanos;
        next = (next + 1) % SAMPLES;
        samples = Math.min(SAMPLES, samples + 1);
        int b = (int) Math.floorMod(second, (long) bucketSecond.length);
        if (bucketSecond[b] != second) {
          bucketSecond[b] = second;
          bucketCount[b] = 0;
        }
        bucketCount[b]++;
      }
    }

    synchronized MethodFigures figures(String name, long now) {
      long second = Math.floorDiv(now, 1_000_000_000L);
      // The calls of the last WINDOW_SECONDS whole seconds and of the one under way, over the time
      // they span: WINDOW_SECONDS plus the part of this second gone by. (Dividing by
      // WINDOW_SECONDS alone counted the second under way as free time: up to a fifth too many.)
      long inWindow = 0;
      for (int i = 0; i < bucketSecond.length; i++) {
        long age = second - bucketSecond[i];
        if (age >= 0 && age <= WINDOW_SECONDS && bucketCount[i] > 0) {
          inWindow += bucketCount[i];
        }
      }
      double span = WINDOW_SECONDS + Math.floorMod(now, 1_000_000_000L) / 1e9;
      double p99 = Double.NaN;
      if (samples > 0) {
        long[] sorted = Arrays.copyOf(latencies, samples);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(0.99 * samples) - 1;
        p99 = sorted[Math.max(0, rank)] / 1e6;
      }
      return new MethodFigures(name, calls.sum(), failures.sum(), inWindow / span, p99);
    }
  }
}
