package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.RpcInstrumentation.CallObserver;
import io.sluice.rpc.Status;
import java.lang.ref.WeakReference;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The RPC meters keep the meters they resolved (per method and status): what the registry and its
 * filters say must still hold, as if every call asked the builders again. Driven through the
 * instrumentation as a transport calls it, no connection needed.
 */
class RpcMeterCacheTest {
  final MeterRegistry registry = newRegistry();

  /** The kind of registry the cases run against; {@link RpcMeterCachePrometheusTest} runs them on Prometheus's. */
  MeterRegistry newRegistry() {
    return new SimpleMeterRegistry();
  }

  private static MethodDescriptor<BytesValue, BytesValue> method(String service, String name) {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service(service)
        .method(name)
        .kind(MethodKind.UNARY)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  /** One call as a server transport reports it: start, a message each way, end. */
  private static void call(RpcInstrumentation in, MethodDescriptor<?, ?> m, Status.Code code, int in_, int out) {
    CallObserver o = in.onCallStart(null, m);
    o.onMessageReceived(in_);
    o.onMessageSent(out);
    o.onEnd(Status.of(code, ""), 1_000_000);
  }

  private double started(String service) {
    Counter c =
        registry.find("rpc.server.call.started").tags("rpc.service", service, "rpc.method", "Say").counter();
    return c == null ? -1 : c.count();
  }

  private long durations(String service, Status.Code code) {
    Timer t =
        registry
            .find("rpc.server.call.duration")
            .tags("rpc.service", service, "rpc.method", "Say", "rpc.response.status_code", code.name())
            .timer();
    return t == null ? -1 : t.count();
  }

  @Test
  void twoMethodsOfOneNameInTwoServicesKeepTheirOwnSeries() {
    SluiceMetrics metrics = SluiceMetrics.of(registry);
    RpcInstrumentation rsocket = metrics.rsocketServer();
    RpcInstrumentation grpc = metrics.grpcServer();
    MethodDescriptor<?, ?> a = method("test.A", "Say");
    MethodDescriptor<?, ?> b = method("test.B", "Say");
    // Interleaved, so that the last method's meters are never the next call's; and runs of one.
    for (int i = 0; i < 30; i++) {
      MethodDescriptor<?, ?> m = i % 3 == 0 ? b : a;
      Status.Code code = i % 2 == 0 ? Status.Code.OK : Status.Code.NOT_FOUND;
      call(rsocket, m, code, 10, 20);
      call(grpc, m, code, 10, 20);
    }
    assertThat(started("test.A")).isEqualTo(20);
    assertThat(started("test.B")).isEqualTo(10);
    assertThat(durations("test.A", Status.Code.OK)).isEqualTo(10);
    assertThat(durations("test.A", Status.Code.NOT_FOUND)).isEqualTo(10);
    assertThat(durations("test.B", Status.Code.OK)).isEqualTo(5);
    assertThat(durations("test.B", Status.Code.NOT_FOUND)).isEqualTo(5);
    assertThat(registry.find("grpc.server.call.started").tag("grpc.method", "test.A/Say").counter().count())
        .isEqualTo(20);
    assertThat(registry.find("grpc.server.call.started").tag("grpc.method", "test.B/Say").counter().count())
        .isEqualTo(10);
    assertThat(
            registry
                .find("grpc.server.call.rcvd_total_compressed_message_size")
                .tags("grpc.method", "test.B/Say", "grpc.status", "OK")
                .summary()
                .totalAmount())
        .isEqualTo(50);
  }

  @Test
  void twoBindingsOfOneSeriesAddUpInIt() {
    // Two SluiceMetrics over one registry (two servers, say): one meter per id, both counted.
    RpcInstrumentation one = SluiceMetrics.of(registry).rsocketServer();
    RpcInstrumentation two = SluiceMetrics.of(registry).rsocketServer();
    MethodDescriptor<?, ?> m = method("test.A", "Say");
    for (int i = 0; i < 7; i++) {
      call(one, m, Status.Code.OK, 1, 1);
    }
    for (int i = 0; i < 5; i++) {
      call(two, m, Status.Code.OK, 1, 1);
    }
    assertThat(started("test.A")).isEqualTo(12);
    assertThat(durations("test.A", Status.Code.OK)).isEqualTo(12);
  }

  @Test
  void aRegistryThatDeniesTheMetersMakesNoSeriesAndCallsGoOn() {
    registry.config().meterFilter(MeterFilter.denyNameStartsWith("rpc.server"));
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    for (int i = 0; i < 3 * RpcMeters.REFRESH_EVERY; i++) {
      call(in, method("test.A", "Say"), Status.Code.OK, 1, 1);
    }
    call(in, null, Status.Code.UNIMPLEMENTED, 1, 0);
    assertThat(registry.getMeters()).noneMatch(meter -> meter.getId().getName().startsWith("rpc.server"));
  }

  @Test
  void aFilterOnDistributionSettingsIsHonoured() {
    // Percentiles asked for by a filter (as Spring Boot's management.metrics.distribution.* do).
    registry
        .config()
        .meterFilter(
            new MeterFilter() {
              @Override
              public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return id.getName().equals("rpc.server.call.duration")
                    ? DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config)
                    : config;
              }
            });
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    call(in, method("test.A", "Say"), Status.Code.OK, 1, 1);
    Timer t = registry.find("rpc.server.call.duration").timer();
    assertThat(t.takeSnapshot().percentileValues()).hasSize(2);
    // The A66 buckets stay, as the builder asks for them.
    assertThat(t.takeSnapshot().histogramCounts()).hasSize(40);
  }

  @Test
  void aFilterAddedAfterTheFirstCallsAppliesWithinRefreshEveryCalls() {
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    MethodDescriptor<?, ?> m = method("test.A", "Say");
    call(in, m, Status.Code.OK, 1, 1);
    // Late (Micrometer warns, then applies it to meters looked up after it): a tag on every meter.
    registry.config().meterFilter(MeterFilter.commonTags(Tags.of("zone", "z1")));
    for (int i = 0; i < 2 * RpcMeters.REFRESH_EVERY; i++) {
      call(in, m, Status.Code.OK, 1, 1);
    }
    Counter before =
        registry.find("rpc.server.call.started").tag("rpc.service", "test.A").tagKeys().counters().stream()
            .filter(c -> c.getId().getTag("zone") == null)
            .findFirst()
            .orElseThrow();
    Counter after = registry.find("rpc.server.call.started").tags("rpc.service", "test.A", "zone", "z1").counter();
    Timer afterDuration = registry.find("rpc.server.call.duration").tags("zone", "z1").timer();
    assertThat(after).isNotNull();
    assertThat(afterDuration).isNotNull();
    // Every call counted once, in one series or the other; the new one took over within the bound.
    assertThat(before.count() + after.count()).isEqualTo(1 + 2 * RpcMeters.REFRESH_EVERY);
    assertThat(before.count()).isLessThanOrEqualTo(1 + RpcMeters.REFRESH_EVERY);
    assertThat(after.count()).isGreaterThanOrEqualTo(RpcMeters.REFRESH_EVERY);
  }

  @Test
  void aRemovedMeterIsMadeAgainAtItsNextCall() {
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    MethodDescriptor<?, ?> m = method("test.A", "Say");
    call(in, m, Status.Code.OK, 1, 1);
    call(in, m, Status.Code.OK, 1, 1);
    registry.remove(registry.find("rpc.server.call.started").tag("rpc.service", "test.A").counter());
    registry.remove(registry.find("rpc.server.call.duration").tag("rpc.service", "test.A").timer());
    assertThat(started("test.A")).isEqualTo(-1);
    call(in, m, Status.Code.OK, 1, 1);
    // A new series from this call on, as a builder call per call would give.
    assertThat(started("test.A")).isEqualTo(1);
    assertThat(durations("test.A", Status.Code.OK)).isEqualTo(1);
    assertThat(
            registry
                .find("rpc.server.request.size")
                .tags("rpc.service", "test.A", "rpc.response.status_code", "OK")
                .summary()
                .count())
        .isEqualTo(3);
  }

  @Test
  void eachThreadKeepsItsOwnLastMethod() throws Exception {
    // A call on one event loop must not write what another loop's calls read: the last method's
    // meters are kept per thread.
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    MethodDescriptor<?, ?> a = method("test.A", "Say");
    MethodDescriptor<?, ?> b = method("test.B", "Say");
    call(in, a, Status.Code.OK, 1, 1);
    java.util.concurrent.atomic.AtomicReference<Object> seenThere = new java.util.concurrent.atomic.AtomicReference<>();
    Thread other = new Thread(() -> {
      call(in, b, Status.Code.OK, 1, 1);
      seenThere.set(RpcMeters.lastMethodOnThisThread());
    });
    other.start();
    other.join(30_000);
    assertThat(other.isAlive()).isFalse();
    assertThat(seenThere.get()).isSameAs(b);
    assertThat(RpcMeters.lastMethodOnThisThread()).isSameAs(a);
    call(in, a, Status.Code.OK, 1, 1);
    assertThat(started("test.A")).isEqualTo(2);
    assertThat(started("test.B")).isEqualTo(1);
  }

  @Test
  void callsFromSeveralThreadsAtOnceAreEachCountedOnce() throws Exception {
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    MethodDescriptor<?, ?> a = method("test.A", "Say");
    MethodDescriptor<?, ?> b = method("test.B", "Say");
    int threads = 4;
    int perThread = 3 * RpcMeters.REFRESH_EVERY; // across refreshes
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < perThread; i++) {
            call(in, (i + first) % 2 == 0 ? a : b, Status.Code.OK, 1, 1);
          }
          return null;
        }));
      }
      go.countDown();
      for (java.util.concurrent.Future<?> f : done) {
        f.get(120, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(started("test.A")).isEqualTo(threads * perThread / 2);
    assertThat(started("test.B")).isEqualTo(threads * perThread / 2);
    assertThat(durations("test.A", Status.Code.OK)).isEqualTo(threads * perThread / 2);
    assertThat(durations("test.B", Status.Code.OK)).isEqualTo(threads * perThread / 2);
  }

  @Test
  void theMetersWantNoFirstResponseSoTransportsReadNoClockForIt() {
    CallObserver o = SluiceMetrics.of(registry).rsocketServer().onCallStart(null, method("test.A", "Say"));
    assertThat(o.observesFirstResponse()).isFalse();
  }

  /**
   * What one call on a thread leaves on it must not keep the meters' registry: a dropped registry
   * (a refreshed context, a test's) is collected while the threads that made calls live on. On a
   * plain thread (a JDK thread-local) and a netty one (its own thread-local map).
   */
  @Test
  void aThreadThatMadeACallDoesNotKeepADroppedRegistry() throws Exception {
    assertRegistryCollectedAfterACallOn(Thread::new);
    assertRegistryCollectedAfterACallOn(FastThreadLocalThread::new);
  }

  private void assertRegistryCollectedAfterACallOn(java.util.function.Function<Runnable, Thread> threads)
      throws Exception {
    AtomicReference<WeakReference<MeterRegistry>> dropped = new AtomicReference<>();
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread t =
        threads.apply(
            () -> {
              dropped.set(oneCallThenDrop());
              called.countDown();
              try {
                release.await(60, TimeUnit.SECONDS); // alive while the registry should go
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    t.setDaemon(true);
    t.start();
    try {
      assertThat(called.await(30, TimeUnit.SECONDS)).isTrue();
      WeakReference<MeterRegistry> ref = dropped.get();
      for (int i = 0; i < 20 && ref.get() != null; i++) {
        System.gc();
        Thread.sleep(10);
      }
      assertThat(ref.get()).as("registry reachable after its last user was dropped").isNull();
    } finally {
      release.countDown();
      t.join(30_000);
    }
  }

  /** A registry and its meters, one call made on this thread, both dropped: a weak reference left. */
  private WeakReference<MeterRegistry> oneCallThenDrop() {
    MeterRegistry registry = newRegistry();
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    call(in, method("test.Gone", "Say"), Status.Code.OK, 1, 1);
    assertThat(RpcMeters.lastMethodOnThisThread()).isNotNull();
    return new WeakReference<>(registry);
  }
}
