package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
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
 * the fly. Statuses are the 17 gRPC codes.
 *
 * <p><b>Cost.</b> Every meter is the registry's own (made by Micrometer's builders, so meter filters,
 * their distribution settings and the registry's clock and step apply, and each is in {@code
 * getMeters()}); what is saved is everything around them. Meters are resolved the first time a
 * (method, status) pair is seen and kept in a per-method array, the last method's entry found
 * without a map lookup (each thread remembers the last method it saw, in a netty {@link
 * FastThreadLocal}: an array index on an event loop): no tags are built, nothing is looked up by
 * string, and nothing shared is written per call (no cache line bounces between event loops). A call
 * reads no clock of its own ({@link Call#observesFirstResponse} is false, so the transport reads
 * the clock at the call's start and end only), sums its message bytes in plain fields and records
 * them once at its end. A call costs what Micrometer's four records cost (the started counter, the
 * duration timer, the two size summaries) and little more.
 *
 * <p><b>Kept meters stay the registry's.</b> A kept meter is resolved again through its builder
 * (so through the registry, which gives the same meter unless something changed) when the
 * registry removes any meter ({@code onMeterRemoved}: a removed series is made again at its next
 * call, as a builder call per call would) and otherwise after a refresh, so that a meter filter
 * added after the first calls (which Micrometer applies to meters looked up after it) applies here
 * too. A refresh comes when one thread has made {@value #REFRESH_EVERY} calls per method in use
 * since the last one: each thread counts its own calls (no shared counter), and every kept meter
 * is resolved again at its next use after it, at most a few resolutions per thousand calls however
 * many series there are.
 *
 * <p><b>Threads.</b> A call's callbacks may come on different threads (see {@link
 * RpcInstrumentation}); the per-call byte sums are written with release and read with acquire,
 * each written by one thread at a time (requests on the loop, responses where they are sent).
 * Kept meters are immutable objects (final fields only) published through the map, a volatile
 * field, or an array slot whose racy read can only see a whole one or none.
 */
final class RpcMeters implements RpcInstrumentation {
  /** Beyond this many distinct methods, further ones are counted as {@code other}. */
  static final int MAX_METHODS = 1000;
  static final String OTHER = "other";
  /** Calls of one thread, per method in use, after which kept meters are resolved again. */
  static final int REFRESH_EVERY = 1024;

  /** Latency buckets (seconds) of gRFC A66, so that dashboards built for grpc-java match. */
  private static final double[] LATENCY_BUCKETS = {
    0.00001, 0.00005, 0.0001, 0.0003, 0.0006, 0.0008, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006,
    0.008, 0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.13, 0.16, 0.2,
    0.25, 0.3, 0.4, 0.5, 0.65, 0.8, 1, 2, 5, 10, 20, 50, 100
  };

  /** {@link #LATENCY_BUCKETS} as the durations a timer builder takes. */
  private static final Duration[] LATENCY_SLOS = new Duration[LATENCY_BUCKETS.length];

  static {
    for (int i = 0; i < LATENCY_SLOS.length; i++) {
      LATENCY_SLOS[i] = Duration.ofNanos((long) (LATENCY_BUCKETS[i] * 1e9));
    }
  }

  /** Size buckets (bytes) of gRFC A66 (its 0 bucket aside: Micrometer takes positive bounds only). */
  private static final double[] SIZE_BUCKETS = {
    1024, 2048, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456,
    1073741824, 4294967296.0
  };

  private final MeterRegistry registry;
  private final Tags common;
  private final RpcMeterNames names;
  private final MeterRemovals removals;
  private final ConcurrentHashMap<MethodDescriptor<?, ?>, MethodMeters> methods =
      new ConcurrentHashMap<>();
  private final MethodMeters other;
  /**
   * Per thread: the meters of the last method this thread saw (of any RpcMeters: {@link
   * MethodMeters#owner} tells whose) and its calls since its last refresh. One for every instance,
   * so that instances made per target take no thread-local slot each.
   */
  private static final FastThreadLocal<Local> LOCAL =
      new FastThreadLocal<>() {
        @Override
        protected Local initialValue() {
          return new Local();
        }
      };

  /**
   * What a thread keeps: written by that thread only. The last method's meters are held weakly (a
   * new reference only when this thread's method changes): its instance keeps them while it lives,
   * and a dropped instance, and its registry, is not kept by every thread that made a call.
   */
  private static final class Local {
    WeakReference<MethodMeters> last = new WeakReference<>(null);
    int calls;
    int rounds;
  }

  /** Changes at every refresh: kept meters resolved before a change are resolved again. */
  private volatile int epoch;

  RpcMeters(MeterRegistry registry, Tags common, RpcMeterNames names, MeterRemovals removals) {
    this.registry = registry;
    this.common = common;
    this.names = names;
    this.removals = removals;
    this.other = new MethodMeters(null, OTHER, OTHER, OTHER);
  }

  @Override
  public CallObserver onCallStart(CallMetadata metadata, MethodDescriptor<?, ?> method) {
    MethodMeters m = meters(method);
    m.started().increment();
    return new Call(m);
  }

  private MethodMeters meters(MethodDescriptor<?, ?> method) {
    Local local = LOCAL.get();
    countCall(local);
    if (method == null) {
      return other;
    }
    MethodMeters m = local.last.get();
    if (m != null && m.descriptor == method && m.owner() == this) {
      return m;
    }
    m = methods.get(method);
    if (m == null) {
      if (methods.size() >= MAX_METHODS) {
        return other;
      }
      m = methods.computeIfAbsent(
          method, d -> new MethodMeters(d, d.fullName(), d.service(), d.method()));
    }
    local.last = new WeakReference<>(m);
    return m;
  }

  /**
   * Counts a call of this thread; after {@value #REFRESH_EVERY} calls per method in use, a refresh
   * (the only shared write, that rare).
   */
  private void countCall(Local local) {
    if (++local.calls < REFRESH_EVERY) {
      return;
    }
    local.calls = 0;
    if (++local.rounds < Math.max(1, methods.size())) {
      return;
    }
    local.rounds = 0;
    epoch++; // racy increments may merge: any change refreshes
  }

  /** The method whose meters this thread keeps as its last (tests). */
  static MethodDescriptor<?, ?> lastMethodOnThisThread() {
    MethodMeters m = LOCAL.get().last.get();
    return m == null ? null : m.descriptor;
  }

  /** Kept meters, with what tells when to resolve them again (final fields: safely shared). */
  private abstract class Kept {
    /** {@link MeterRemovals#generation()} before these meters were resolved. */
    private final int generation = removals.generation(); // read first: a removal while resolving is seen next time
    /** {@link #epoch} before these meters were resolved. */
    private final int resolvedIn = epoch;

    final boolean stale() {
      return generation != removals.generation() || resolvedIn != epoch;
    }
  }

  private final class Started extends Kept {
    final Counter counter;

    Started(Counter.Builder builder) {
      this.counter = builder.register(registry);
    }
  }

  /** The meters of one method value; those per status are made at its first call with it. */
  private final class MethodMeters {
    final MethodDescriptor<?, ?> descriptor; // null for other
    final Tags tags;
    private final Counter.Builder startedBuilder;
    /** Replaced whole when stale; volatile, so a thread that reaches this object sees one. */
    private volatile Started started;
    /** Slots filled at a status's first call; a racy read sees a whole (immutable) one or null. */
    private final PerStatus[] byStatus = new PerStatus[Status.Code.values().length];

    MethodMeters(MethodDescriptor<?, ?> descriptor, String fullName, String service, String method) {
      this.descriptor = descriptor;
      this.tags = common.and(names.methodTags(fullName, service, method));
      this.startedBuilder = Counter.builder(names.started()).description("RPC calls started").tags(tags);
      this.started = new Started(startedBuilder);
    }

    RpcMeters owner() {
      return RpcMeters.this;
    }

    Counter started() {
      Started s = started;
      if (s.stale()) {
        s = started = new Started(startedBuilder);
      }
      return s.counter;
    }

    PerStatus of(Status.Code code) {
      int i = code.ordinal();
      PerStatus p = byStatus[i];
      if (p == null || p.stale()) {
        p = byStatus[i] = new PerStatus(tags.and(names.statusTag(), names.statusValue(code)));
      }
      return p;
    }
  }

  private final class PerStatus extends Kept {
    final Timer duration;
    final Timer callDuration; // null unless the names have a second one
    final DistributionSummary sent;
    final DistributionSummary received;

    PerStatus(Tags tags) {
      duration =
          Timer.builder(names.duration())
              .description("RPC call duration, from the call's start to its end")
              .tags(tags)
              .serviceLevelObjectives(LATENCY_SLOS)
              .register(registry);
      callDuration =
          names.callDuration() == null
              ? null
              : Timer.builder(names.callDuration())
                  .description("RPC call duration as the application sees it, from start to end")
                  .tags(tags)
                  .serviceLevelObjectives(LATENCY_SLOS)
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
    private static final VarHandle SENT;
    private static final VarHandle RECEIVED;

    static {
      try {
        MethodHandles.Lookup l = MethodHandles.lookup();
        SENT = l.findVarHandle(Call.class, "sentBytes", long.class);
        RECEIVED = l.findVarHandle(Call.class, "receivedBytes", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final MethodMeters method;
    // Written with release, read with acquire: no fence on the event loop per message.
    private long sentBytes;
    private long receivedBytes;

    Call(MethodMeters method) {
      this.method = method;
    }

    /** The duration is all these meters take: the transport reads no clock for a first response. */
    @Override
    public boolean observesFirstResponse() {
      return false;
    }

    @Override
    public void onMessageReceived(int bytes) {
      RECEIVED.setRelease(this, (long) RECEIVED.getAcquire(this) + bytes);
    }

    @Override
    public void onMessageSent(int bytes) {
      SENT.setRelease(this, (long) SENT.getAcquire(this) + bytes);
    }

    @Override
    public void onEnd(Status status, long nanosSinceStart) {
      PerStatus p = method.of(status.code());
      p.duration.record(nanosSinceStart, TimeUnit.NANOSECONDS);
      if (p.callDuration != null) {
        p.callDuration.record(nanosSinceStart, TimeUnit.NANOSECONDS);
      }
      p.sent.record((long) SENT.getAcquire(this));
      p.received.record((long) RECEIVED.getAcquire(this));
    }
  }
}
