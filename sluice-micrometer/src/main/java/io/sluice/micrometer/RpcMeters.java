package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * RPC metrics per method and status, as an {@link RpcInstrumentation}: calls started, a duration
 * histogram, and the bytes of the messages each way per call. The names and attribute keys come
 * from a {@link RpcMeterNames}: gRFC A66's on the gRPC wire, OpenTelemetry's RPC semantic
 * conventions on the RSocket wire; server side as an instrumentation the transport calls, client
 * side through {@link RpcClientMeters}, a client interceptor over this same class.
 *
 * <p><b>Cardinality.</b> A method is one the service registry knows (the transport passes its
 * descriptor; a name a caller makes up arrives as no descriptor at all): each known method has
 * its series, everything else folds into {@code other}, as A66 prescribes; and the number of
 * distinct method values is capped ({@link #MAX_METHODS}) in case a registry builds descriptors on
 * the fly. Statuses are the 17 gRPC codes. Meters are made the first time a (method, status) pair
 * is seen, then found in a per-method array: nothing is looked up by string per call.
 *
 * <p><b>Cost.</b> In a Prometheus registry (the common case, and the one {@code ./sluice bench
 * --pair sluice-rpc,sluice-rpc+observed} measures) a call costs no atomic operation, no fence, no
 * clock read and no allocation beyond its observer: its start, and at its end its duration and
 * sizes with their buckets, sums and maxima, go to {@link PerThreadCells} (plain per-event-loop
 * arrays; a locked shared copy for calls that end off the loop), which the registry reads when it
 * is scraped: {@code started} through a {@link FunctionCounter}, the histograms through {@link
 * PrometheusHistograms}, which gives Prometheus exactly what the Micrometer timers and summaries
 * would. In any other registry the meters are Micrometer's own {@link Counter}, {@link Timer} and
 * {@link DistributionSummary}, recorded per call.
 *
 * <p><b>Threads.</b> A call's callbacks may come on different threads (see {@link
 * RpcInstrumentation}); the per-call byte sums are written by one thread at a time (requests on the
 * loop, responses where they are sent), with release stores and acquire loads (no fence on x86).
 */
final class RpcMeters implements RpcInstrumentation {
  /** Beyond this many distinct methods, further ones are counted as {@code other}. */
  static final int MAX_METHODS = 1000;
  static final String OTHER = "other";

  /** Latency buckets (seconds) of gRFC A66, so that dashboards built for grpc-java match. */
  private static final double[] LATENCY_BUCKETS = {
    0.00001, 0.00005, 0.0001, 0.0003, 0.0006, 0.0008, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006,
    0.008, 0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.13, 0.16, 0.2,
    0.25, 0.3, 0.4, 0.5, 0.65, 0.8, 1, 2, 5, 10, 20, 50, 100
  };

  /** Size buckets (bytes) of gRFC A66 (its 0 bucket aside: Micrometer takes positive bounds only). */
  private static final double[] SIZE_BUCKETS = {
    1024, 2048, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456,
    1073741824, 4294967296.0
  };

  /** The latency bounds in nanoseconds, as the Micrometer timer holds them. */
  private static final Duration[] LATENCY_SLOS = new Duration[LATENCY_BUCKETS.length];
  static final long[] LATENCY_NANOS = new long[LATENCY_BUCKETS.length];
  private static final double[] LATENCY_NANOS_D = new double[LATENCY_BUCKETS.length];
  static final long[] SIZE_BOUNDS = new long[SIZE_BUCKETS.length];

  static {
    for (int i = 0; i < LATENCY_BUCKETS.length; i++) {
      LATENCY_SLOS[i] = Duration.ofNanos((long) (LATENCY_BUCKETS[i] * 1e9));
      LATENCY_NANOS[i] = LATENCY_SLOS[i].toNanos();
      LATENCY_NANOS_D[i] = LATENCY_NANOS[i];
    }
    for (int i = 0; i < SIZE_BUCKETS.length; i++) {
      SIZE_BOUNDS[i] = (long) SIZE_BUCKETS[i];
    }
  }

  // The cells of a (method, status) row: each histogram's buckets (one per bound, then one above
  // the last), then its sum and its maximum.
  static final int DURATION = 0;
  static final int DURATION_SUM = DURATION + LATENCY_BUCKETS.length + 1;
  static final int DURATION_MAX = DURATION_SUM + 1;
  static final int SENT = DURATION_MAX + 1;
  static final int SENT_SUM = SENT + SIZE_BUCKETS.length + 1;
  static final int SENT_MAX = SENT_SUM + 1;
  static final int RECEIVED = SENT_MAX + 1;
  static final int RECEIVED_SUM = RECEIVED + SIZE_BUCKETS.length + 1;
  static final int RECEIVED_MAX = RECEIVED_SUM + 1;
  static final int ROW = RECEIVED_MAX + 1;

  private final MeterRegistry registry;
  private final Tags common;
  private final RpcMeterNames names;
  private final ConcurrentHashMap<MethodDescriptor<?, ?>, MethodMeters> methods =
      new ConcurrentHashMap<>();
  private final MethodMeters other;
  /** Non-null: the registry is a Prometheus one, and the calls are counted in {@link #starts} and {@link #calls}. */
  private final PrometheusHistograms prometheus;
  private final PerThreadCells starts = new PerThreadCells(1);
  private final PerThreadCells calls = new PerThreadCells(ROW);

  RpcMeters(MeterRegistry registry, Tags common, RpcMeterNames names) {
    this(registry, common, names, true);
  }

  /** {@code cells} false: Micrometer's meters recorded per call even in a Prometheus registry (a test compares the two). */
  RpcMeters(MeterRegistry registry, Tags common, RpcMeterNames names, boolean cells) {
    this.registry = registry;
    this.common = common;
    this.names = names;
    this.prometheus = cells ? prometheusOf(registry) : null;
    this.other = new MethodMeters(null, OTHER, OTHER, OTHER);
  }

  /** The Prometheus export, when the registry is Prometheus's and its classes are present. */
  private static PrometheusHistograms prometheusOf(MeterRegistry registry) {
    Class<?> c = registry.getClass();
    while (c != null && !c.getName().equals("io.micrometer.prometheusmetrics.PrometheusMeterRegistry")) {
      c = c.getSuperclass(); // checked by name: the class need not be there
    }
    if (c == null) {
      return null;
    }
    try {
      return PrometheusHistograms.of(registry);
    } catch (LinkageError e) {
      return null; // an other version of the Prometheus client: Micrometer's meters then
    }
  }

  @Override
  public CallObserver onCallStart(CallMetadata metadata, MethodDescriptor<?, ?> method) {
    MethodMeters m = meters(method);
    m.start();
    return new Call(m);
  }

  /** The meters of the last method looked up (racy and plain: any thread's last will do). */
  private MethodMeters last;

  private MethodMeters meters(MethodDescriptor<?, ?> method) {
    if (method == null) {
      return other;
    }
    MethodMeters l = last;
    if (l != null && l.descriptor == method) {
      return l; // its fields are final: safely published whichever thread wrote it
    }
    MethodMeters m = methods.get(method);
    if (m != null) {
      last = m;
      return m;
    }
    if (methods.size() >= MAX_METHODS) {
      return other;
    }
    return methods.computeIfAbsent(
        method, d -> new MethodMeters(d, d.fullName(), d.service(), d.method()));
  }

  /**
   * Where to start looking for the bucket of a value of each bit length (0 to 64): the first bound
   * not below the smallest such value. A value's bucket is then a step or three further at most.
   */
  private static int[] starts(long[] bounds) {
    int[] start = new int[65];
    for (int bits = 0; bits <= 64; bits++) {
      long smallest = bits == 0 ? 0 : bits == 64 ? Long.MIN_VALUE : 1L << (bits - 1);
      int i = 0;
      while (bits < 64 && i < bounds.length && bounds[i] < smallest) {
        i++;
      }
      start[bits] = bits == 64 ? 0 : i; // bit length 64: negative, below every bound
    }
    return start;
  }

  static final int[] LATENCY_STARTS = starts(LATENCY_NANOS);
  static final int[] SIZE_STARTS = starts(SIZE_BOUNDS);

  /**
   * The bucket of {@code value} among {@code bounds} (with their {@link #starts}): the first bound
   * it does not exceed, or {@code bounds.length}.
   */
  static int bucket(long[] bounds, int[] starts, long value) {
    int i = starts[64 - Long.numberOfLeadingZeros(value)];
    while (i < bounds.length && bounds[i] < value) {
      i++;
    }
    return i;
  }

  /** The meters of one method value; those per status are made at its first call with it. */
  private final class MethodMeters {
    final MethodDescriptor<?, ?> descriptor; // null for other
    final Tags tags;
    final Counter started; // null when counted in cells
    final int startRow;
    private final PerStatus[] byStatus = new PerStatus[Status.Code.values().length];

    MethodMeters(MethodDescriptor<?, ?> descriptor, String fullName, String service, String method) {
      this.descriptor = descriptor;
      this.tags = common.and(names.methodTags(fullName, service, method));
      if (prometheus == null) {
        this.startRow = -1;
        this.started =
            Counter.builder(names.started())
                .description("RPC calls started")
                .tags(tags)
                .register(registry);
      } else {
        int row = starts.newRow();
        this.startRow = row;
        this.started = null;
        // Micrometer holds a function's object weakly: PrometheusHistograms keeps the cells, as
        // it keeps the histograms', so the counts stay readable after this RpcMeters is dropped.
        prometheus.keep(starts);
        FunctionCounter.builder(names.started(), starts, s -> s.sum(row, 0))
            .description("RPC calls started")
            .tags(tags)
            .register(registry);
      }
    }

    void start() {
      if (started != null) {
        started.increment();
        return;
      }
      long[] c = starts.mine(startRow);
      if (c != null) {
        PerThreadCells.add(c, 0, 1);
      } else {
        synchronized (starts) {
          PerThreadCells.add(starts.sharedRow(startRow), 0, 1);
        }
      }
    }

    PerStatus of(Status.Code code) {
      PerStatus p = byStatus[code.ordinal()];
      if (p == null) {
        synchronized (this) {
          p = byStatus[code.ordinal()];
          if (p == null) {
            p = byStatus[code.ordinal()] = new PerStatus(tags.and(names.statusTag(), names.statusValue(code)));
          }
        }
      }
      return p;
    }
  }

  /** One (method, status): Micrometer's meters, or a row of {@link #calls} exported to Prometheus. */
  private final class PerStatus {
    final Timer duration; // null when counted in cells
    final Timer callDuration; // null unless the names have a second one
    final DistributionSummary sent;
    final DistributionSummary received;
    final int row;

    PerStatus(Tags tags) {
      Timer d =
          Timer.builder(names.duration())
              .description("RPC call duration, from the call's start to its end")
              .tags(tags)
              .serviceLevelObjectives(LATENCY_SLOS)
              .register(registry);
      Timer cd =
          names.callDuration() == null
              ? null
              : Timer.builder(names.callDuration())
                  .description("RPC call duration as the application sees it, from start to end")
                  .tags(tags)
                  .serviceLevelObjectives(LATENCY_SLOS)
                  .register(registry);
      DistributionSummary s =
          DistributionSummary.builder(names.sentSize())
              .description("Bytes of all messages a call sent (no transport framing)")
              .baseUnit("bytes")
              .tags(tags)
              .serviceLevelObjectives(SIZE_BUCKETS)
              .register(registry);
      DistributionSummary r =
          DistributionSummary.builder(names.receivedSize())
              .description("Bytes of all messages a call received (no transport framing)")
              .baseUnit("bytes")
              .tags(tags)
              .serviceLevelObjectives(SIZE_BUCKETS)
              .register(registry);
      if (prometheus == null) {
        row = -1;
        duration = d;
        callDuration = cd;
        sent = s;
        received = r;
        return;
      }
      row = calls.newRow();
      duration = null;
      callDuration = null;
      sent = null;
      received = null;
      // Both client durations are one clock reading: one row serves both names.
      prometheus.export(registry, d, calls, row, DURATION, LATENCY_NANOS_D, DURATION_SUM, DURATION_MAX, true);
      if (cd != null) {
        prometheus.export(registry, cd, calls, row, DURATION, LATENCY_NANOS_D, DURATION_SUM, DURATION_MAX, true);
      }
      prometheus.export(registry, s, calls, row, SENT, SIZE_BUCKETS, SENT_SUM, SENT_MAX, false);
      prometheus.export(registry, r, calls, row, RECEIVED, SIZE_BUCKETS, RECEIVED_SUM, RECEIVED_MAX, false);
    }

    void record(long nanos, long sentBytes, long receivedBytes) {
      if (duration != null) {
        duration.record(nanos, TimeUnit.NANOSECONDS);
        if (callDuration != null) {
          callDuration.record(nanos, TimeUnit.NANOSECONDS);
        }
        sent.record(sentBytes);
        received.record(receivedBytes);
        return;
      }
      long[] c = calls.mine(row);
      if (c != null) {
        write(c, nanos, sentBytes, receivedBytes);
      } else {
        synchronized (calls) {
          write(calls.sharedRow(row), nanos, sentBytes, receivedBytes);
        }
      }
    }
  }

  private static void write(long[] c, long nanos, long sentBytes, long receivedBytes) {
    if (nanos >= 0) { // as a Micrometer timer, which drops a negative duration
      PerThreadCells.add(c, DURATION + bucket(LATENCY_NANOS, LATENCY_STARTS, nanos), 1);
      PerThreadCells.add(c, DURATION_SUM, nanos);
      PerThreadCells.max(c, DURATION_MAX, nanos);
    }
    PerThreadCells.add(c, SENT + bucket(SIZE_BOUNDS, SIZE_STARTS, sentBytes), 1);
    PerThreadCells.add(c, SENT_SUM, sentBytes);
    PerThreadCells.max(c, SENT_MAX, sentBytes);
    PerThreadCells.add(c, RECEIVED + bucket(SIZE_BOUNDS, SIZE_STARTS, receivedBytes), 1);
    PerThreadCells.add(c, RECEIVED_SUM, receivedBytes);
    PerThreadCells.max(c, RECEIVED_MAX, receivedBytes);
  }

  /** One call: sums its message bytes until its end, when they are recorded with its status. */
  private static final class Call implements CallObserver {
    private static final VarHandle SENT_BYTES;
    private static final VarHandle RECEIVED_BYTES;

    static {
      try {
        MethodHandles.Lookup l = MethodHandles.lookup();
        SENT_BYTES = l.findVarHandle(Call.class, "sentBytes", long.class);
        RECEIVED_BYTES = l.findVarHandle(Call.class, "receivedBytes", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final MethodMeters method;
    @SuppressWarnings("unused") // through SENT_BYTES
    private long sentBytes;
    @SuppressWarnings("unused") // through RECEIVED_BYTES
    private long receivedBytes;

    Call(MethodMeters method) {
      this.method = method;
    }

    @Override
    public void onMessageReceived(int bytes) {
      RECEIVED_BYTES.setRelease(this, (long) RECEIVED_BYTES.getAcquire(this) + bytes);
    }

    @Override
    public void onMessageSent(int bytes) {
      SENT_BYTES.setRelease(this, (long) SENT_BYTES.getAcquire(this) + bytes);
    }

    @Override
    public void onEnd(Status status, long nanosSinceStart) {
      method.of(status.code())
          .record(nanosSinceStart, (long) SENT_BYTES.getAcquire(this), (long) RECEIVED_BYTES.getAcquire(this));
    }
  }
}
