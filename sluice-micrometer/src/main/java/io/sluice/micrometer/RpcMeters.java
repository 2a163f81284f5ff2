package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
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
 * <p><b>Threads.</b> A call's callbacks may come on different threads (see {@link
 * RpcInstrumentation}); the per-call byte sums are volatile fields, each written by one thread at a
 * time (requests on the loop, responses where they are sent).
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

  private final MeterRegistry registry;
  private final Tags common;
  private final RpcMeterNames names;
  private final ConcurrentHashMap<MethodDescriptor<?, ?>, MethodMeters> methods =
      new ConcurrentHashMap<>();
  private final MethodMeters other;

  RpcMeters(MeterRegistry registry, Tags common, RpcMeterNames names) {
    this.registry = registry;
    this.common = common;
    this.names = names;
    this.other = new MethodMeters(OTHER, OTHER, OTHER);
  }

  @Override
  public CallObserver onCallStart(CallMetadata metadata, MethodDescriptor<?, ?> method) {
    MethodMeters m = meters(method);
    m.started.increment();
    return new Call(m);
  }

  private MethodMeters meters(MethodDescriptor<?, ?> method) {
    if (method == null) {
      return other;
    }
    MethodMeters m = methods.get(method);
    if (m != null) {
      return m;
    }
    if (methods.size() >= MAX_METHODS) {
      return other;
    }
    return methods.computeIfAbsent(
        method, d -> new MethodMeters(d.fullName(), d.service(), d.method()));
  }

  /** The meters of one method value; those per status are made at its first call with it. */
  private final class MethodMeters {
    final Tags tags;
    final Counter started;
    private final PerStatus[] byStatus = new PerStatus[Status.Code.values().length];

    MethodMeters(String fullName, String service, String method) {
      this.tags = common.and(names.methodTags(fullName, service, method));
      this.started =
          Counter.builder(names.started())
              .description("RPC calls started")
              .tags(tags)
              .register(registry);
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

  private final class PerStatus {
    final Timer duration;
    final Timer callDuration; // null unless the names have a second one
    final DistributionSummary sent;
    final DistributionSummary received;

    PerStatus(Tags tags) {
      Duration[] slo = new Duration[LATENCY_BUCKETS.length];
      for (int i = 0; i < slo.length; i++) {
        slo[i] = Duration.ofNanos((long) (LATENCY_BUCKETS[i] * 1e9));
      }
      duration =
          Timer.builder(names.duration())
              .description("RPC call duration, from the call's start to its end")
              .tags(tags)
              .serviceLevelObjectives(slo)
              .register(registry);
      callDuration =
          names.callDuration() == null
              ? null
              : Timer.builder(names.callDuration())
                  .description("RPC call duration as the application sees it, from start to end")
                  .tags(tags)
                  .serviceLevelObjectives(slo)
                  .register(registry);
      sent =
          DistributionSummary.builder(names.sentSize())
              .description("Bytes of all messages a call sent (no transport framing)")
              .baseUnit("bytes")
              .tags(tags)
              .serviceLevelObjectives(SIZE_BUCKETS)
              .register(registry);
      received =
          DistributionSummary.builder(names.receivedSize())
              .description("Bytes of all messages a call received (no transport framing)")
              .baseUnit("bytes")
              .tags(tags)
              .serviceLevelObjectives(SIZE_BUCKETS)
              .register(registry);
    }
  }

  /** One call: sums its message bytes until its end, when they are recorded with its status. */
  private static final class Call implements CallObserver {
    private final MethodMeters method;
    private volatile long sentBytes;
    private volatile long receivedBytes;

    Call(MethodMeters method) {
      this.method = method;
    }

    @Override
    public void onMessageReceived(int bytes) {
      receivedBytes += bytes;
    }

    @Override
    public void onMessageSent(int bytes) {
      sentBytes += bytes;
    }

    @Override
    public void onEnd(Status status, long nanosSinceStart) {
      PerStatus p = method.of(status.code());
      p.duration.record(nanosSinceStart, TimeUnit.NANOSECONDS);
      if (p.callDuration != null) {
        p.callDuration.record(nanosSinceStart, TimeUnit.NANOSECONDS);
      }
      p.sent.record(sentBytes);
      p.received.record(receivedBytes);
    }
  }
}
