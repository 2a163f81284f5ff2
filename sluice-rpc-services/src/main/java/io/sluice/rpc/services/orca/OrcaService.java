package io.sluice.rpc.services.orca;

import io.sluice.rpc.BindableService;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import io.sluice.rpc.services.xds.service.orca.v3.OrcaLoadReportRequest;
import io.sluice.rpc.services.xds.service.orca.v3.OrcaProto;
import io.sluice.rpc.services.xds.service.orca.v3.ReactorOpenRcaService;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ORCA out-of-band load reports: {@code xds.service.orca.v3.OpenRcaService/StreamCoreMetrics},
 * which gRPC's weighted round robin opens once per backend connection. Each stream gets the
 * server's report at once and then every {@code report_interval} the client asks for (never more
 * often than {@link Builder#minReportInterval}): the {@link ServerLoad}'s figures with the {@link
 * ServerMetricRecorder}'s laid over them. A stream whose reader is slow holds at most one unsent
 * report (the newest).
 *
 * <pre>{@code
 * ServerMetricRecorder recorder = new ServerMetricRecorder();
 * OrcaService orca = OrcaService.builder().load(ServerLoad.of(policy.stats())).recorder(recorder).build();
 * ServiceRegistry registry = ServiceRegistry.builder().add(greeter).add(orca).build();
 * recorder.setCpuUtilization(cpu); // whenever the application measures it
 * }</pre>
 *
 * <p><b>Limits.</b> At most {@link Builder#maxStreams} streams at once (further ones end
 * RESOURCE_EXHAUSTED). <b>Threads.</b> Thread-safe; reports are sent from one timer thread (the
 * service's own daemon thread, or the executor given, which {@link #close()} then leaves running).
 * Holds no buffers.
 */
public final class OrcaService implements BindableService, AutoCloseable {
  /** grpc-java's default minimum interval between two reports of one stream. */
  public static final Duration DEFAULT_MIN_REPORT_INTERVAL = Duration.ofSeconds(30);

  /** Default bound on open streams. */
  public static final int DEFAULT_MAX_STREAMS = 1024;

  private final ServerLoad load;
  private final ServerMetricRecorder recorder;
  private final long minIntervalNanos;
  private final int maxStreams;
  private final ScheduledExecutorService timer;
  private final boolean ownTimer;
  private final AtomicInteger streams = new AtomicInteger();
  /** The streams counted in {@link #streams}, for {@link #close()} to end. */
  private final java.util.Set<Stream> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private OrcaService(Builder b) {
    this.load = b.load;
    this.recorder = b.recorder;
    this.minIntervalNanos = b.minReportInterval.toNanos();
    this.maxStreams = b.maxStreams;
    this.ownTimer = b.timer == null;
    this.timer =
        b.timer != null
            ? b.timer
            : Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "sluice-orca-reports");
                  t.setDaemon(true);
                  return t;
                });
  }

  /** A builder: no load figures, a new recorder, reports at most every 30 s. */
  public static Builder builder() {
    return new Builder();
  }

  /** The recorder whose figures the reports carry. */
  public ServerMetricRecorder recorder() {
    return recorder;
  }

  /** The report a stream would get now. */
  public OrcaLoadReport report() {
    return recorder.report(load);
  }

  /** Streams open now. */
  public int streams() {
    return streams.get();
  }

  @Override
  public ServiceDefinition bindService() {
    return ServiceDefinition.builder(ReactorOpenRcaService.SERVICE)
        .fileDescriptor(OrcaProto.getDescriptor())
        .add(ReactorOpenRcaService.STREAM_CORE_METRICS, call -> new Stream(call))
        .build();
  }

  /**
   * Ends the open streams UNAVAILABLE (as a gRPC server shutting down ends its calls) and stops
   * their reports; streams opened later end UNAVAILABLE at once. Stops the service's own timer (an
   * executor given to the builder is left running). Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    for (Stream s : open) {
      s.end(Status.of(Status.Code.UNAVAILABLE, "the ORCA service is closed"));
    }
    if (ownTimer) {
      timer.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "OrcaService(" + load + ", min interval " + Duration.ofNanos(minIntervalNanos) + ")";
  }

  /** One StreamCoreMetrics call. Callbacks on its event loop; reports from the timer. */
  private final class Stream implements ServerCall.Listener<OrcaLoadReportRequest> {
    private final ServerCall<OrcaLoadReportRequest, OrcaLoadReport> call;
    private boolean requested; // event loop only
    // Guarded by this.
    private long demand;
    private OrcaLoadReport unsent;
    private ScheduledFuture<?> ticks;
    private boolean counted;
    private boolean ended;

    Stream(ServerCall<OrcaLoadReportRequest, OrcaLoadReport> call) {
      this.call = call;
      call.request(1);
    }

    @Override
    public void onMessage(OrcaLoadReportRequest request) {
      if (requested) {
        call.close(Status.of(Status.Code.INTERNAL, "more than one request for a single-request method"));
        return;
      }
      requested = true;
      if (streams.incrementAndGet() > maxStreams) {
        streams.decrementAndGet();
        call.close(Status.of(Status.Code.RESOURCE_EXHAUSTED,
            "at most " + maxStreams + " ORCA report streams at once"));
        return;
      }
      long asked = request.hasReportInterval()
          ? TimeUnit.SECONDS.toNanos(Math.max(0, request.getReportInterval().getSeconds()))
              + Math.max(0, request.getReportInterval().getNanos())
          : 0;
      long interval = Math.max(asked, minIntervalNanos);
      synchronized (this) {
        counted = true;
        open.add(this);
        if (ended) {
          release();
          return;
        }
        if (closed) { // close() ran before this stream was counted: it did not see it
          release();
          call.close(Status.of(Status.Code.UNAVAILABLE, "the ORCA service is closed"));
          return;
        }
        offer(report());
        try {
          ticks = timer.scheduleAtFixedRate(() -> tick(), interval, interval, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          release();
          call.close(Status.of(Status.Code.UNAVAILABLE, "the ORCA service is closed"));
        }
      }
    }

    @Override
    public void onHalfClose() {
      if (!requested) {
        call.close(Status.of(Status.Code.INVALID_ARGUMENT, "call ended without a request"));
      }
    }

    @Override
    public void onCancel() {
      synchronized (this) {
        ended = true;
        release();
      }
    }

    @Override
    public void onReady(long n) {
      synchronized (this) {
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        drain();
      }
    }

    /** Ends the stream with {@code status} (from {@link #close()}), once. */
    void end(Status status) {
      synchronized (this) {
        if (ended) {
          return;
        }
        ended = true;
        release();
      }
      call.close(status);
    }

    private void tick() {
      if (call.isClosed()) {
        synchronized (this) {
          ended = true;
          release();
        }
        return;
      }
      OrcaLoadReport r = report();
      synchronized (this) {
        offer(r);
      }
    }

    /** Under this: keeps {@code r} as the newest unsent report and sends it if allowed. */
    private void offer(OrcaLoadReport r) {
      unsent = r;
      drain();
    }

    /** Under this. */
    private void drain() {
      if (unsent != null && demand > 0 && !call.isClosed()) {
        OrcaLoadReport r = unsent;
        unsent = null;
        demand--;
        call.sendMessage(r);
      }
    }

    /** Under this: stops the ticks and gives the stream's slot back, once. */
    private void release() {
      if (ticks != null) {
        ticks.cancel(false);
        ticks = null;
      }
      if (counted) {
        counted = false;
        open.remove(this);
        streams.decrementAndGet();
      }
      unsent = null;
    }
  }

  /** Builds an {@link OrcaService}. Not thread-safe. */
  public static final class Builder {
    private ServerLoad load = ServerLoad.NONE;
    private ServerMetricRecorder recorder = new ServerMetricRecorder();
    private Duration minReportInterval = DEFAULT_MIN_REPORT_INTERVAL;
    private int maxStreams = DEFAULT_MAX_STREAMS;
    private ScheduledExecutorService timer;

    private Builder() {}

    /** What the server measures ({@link ServerLoad#of} a lease policy's stats); default none. */
    public Builder load(ServerLoad load) {
      this.load = Objects.requireNonNull(load, "load");
      return this;
    }

    /** The application's figures; default a new, empty recorder ({@link OrcaService#recorder()}). */
    public Builder recorder(ServerMetricRecorder recorder) {
      this.recorder = Objects.requireNonNull(recorder, "recorder");
      return this;
    }

    /**
     * The shortest interval between two reports of one stream, whatever the client asks
     * (default {@link #DEFAULT_MIN_REPORT_INTERVAL}); at least 1 ms.
     */
    public Builder minReportInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException("minReportInterval must be at least 1 ms, got " + interval);
      }
      this.minReportInterval = interval;
      return this;
    }

    /** Most streams open at once (default {@value #DEFAULT_MAX_STREAMS}); at least 1. */
    public Builder maxStreams(int maxStreams) {
      if (maxStreams < 1) {
        throw new IllegalArgumentException("maxStreams must be at least 1, got " + maxStreams);
      }
      this.maxStreams = maxStreams;
      return this;
    }

    /** Sends reports from {@code timer} (left running by {@link OrcaService#close()}). */
    public Builder timer(ScheduledExecutorService timer) {
      this.timer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    public OrcaService build() {
      return new OrcaService(this);
    }
  }
}
