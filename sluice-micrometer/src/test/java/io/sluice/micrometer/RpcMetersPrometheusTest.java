package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.RpcInstrumentation.CallObserver;
import io.sluice.rpc.Status;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * In a PrometheusMeterRegistry the RPC meters count in per-thread cells and export their
 * histograms at scrape time ({@link PrometheusHistograms}): the scrape must be the one Micrometer's
 * own timers and summaries give for the same calls, line for line (names, labels, buckets, counts,
 * sums, maxima, help), with the user's meter filters applied, for calls ended on event loops and
 * on other threads alike.
 */
class RpcMetersPrometheusTest {
  private static final MethodDescriptor<BytesValue, BytesValue> SAY = method("Say");
  private static final MethodDescriptor<BytesValue, BytesValue> ASK = method("Ask");

  private static MethodDescriptor<BytesValue, BytesValue> method(String name) {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service("test.Echo")
        .method(name)
        .kind(MethodKind.UNARY)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  private static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    r.config().meterFilter(MeterFilter.commonTags(Tags.of("application", "bench")));
    return r;
  }

  /** Durations (ns) on and around bucket bounds, and sizes likewise, including 0 and beyond the last bound. */
  private static final long[] NANOS = {
    0, 1, 9_999, 10_000, 10_001, 999_999, 1_000_000, 2_500_000, 99_999_999_999L, 100_000_000_000L,
    100_000_000_001L, 250_000_000_000L
  };
  private static final int[] SIZES = {0, 1, 1023, 1024, 1025, 8, 70_000, 5_000_000, Integer.MAX_VALUE};

  /** The same calls on {@code meters}: half on an event loop, half on this thread. */
  private static void calls(RpcInstrumentation meters) throws InterruptedException {
    Runnable half =
        () -> {
          for (int i = 0; i < NANOS.length; i++) {
            MethodDescriptor<?, ?> m = i % 3 == 0 ? ASK : i % 3 == 1 ? SAY : null;
            CallObserver call = meters.onCallStart(CallMetadata.of("test.Echo", "X"), m);
            call.onMessageReceived(SIZES[i % SIZES.length]);
            call.onMessageSent(SIZES[(i + 3) % SIZES.length]);
            call.onMessageSent(SIZES[(i + 5) % SIZES.length] / 2);
            Status.Code code = i % 4 == 0 ? Status.Code.UNAVAILABLE : Status.Code.OK;
            call.onEnd(Status.of(code, "x"), NANOS[i]);
          }
          // a call started and never ended counts as started only
          meters.onCallStart(CallMetadata.of("test.Echo", "Say"), SAY);
        };
    Thread loop = new FastThreadLocalThread(half, "loop");
    loop.start();
    loop.join(60_000);
    assertThat(loop.isAlive()).isFalse();
    half.run();
  }

  private static List<String> lines(String scrape) {
    return Arrays.stream(scrape.split("\n")).sorted().collect(Collectors.toList());
  }

  private static void sameScrape(RpcMeterNames names, Tags common) throws Exception {
    PrometheusMeterRegistry cells = registry();
    PrometheusMeterRegistry micrometer = registry();
    calls(new RpcMeters(cells, common, names, true));
    calls(new RpcMeters(micrometer, common, names, false));
    System.gc(); // the RpcMeters are unreachable now: what the registry reads must not be
    String expected = micrometer.scrape();
    String actual = cells.scrape();
    assertThat(expected).contains("_bucket{").contains("_max{").contains("application=\"bench\"");
    assertThat(lines(actual)).containsExactlyElementsOf(lines(expected));
    // and the cells were used: the Micrometer timers were removed from the registry
    assertThat(cells.find(names.duration()).timer()).isNull();
    assertThat(micrometer.find(names.duration()).timer()).isNotNull();
  }

  @Test
  void rsocketServerScrapeIsMicrometers() throws Exception {
    sameScrape(RpcMeterNames.RSOCKET_SERVER, Tags.empty());
  }

  @Test
  void grpcClientScrapeIsMicrometersWithBothDurations() throws Exception {
    sameScrape(RpcMeterNames.GRPC_CLIENT, Tags.of("grpc.target", "dns:///x:1"));
  }

  @Test
  void twoClientsForTwoTargetsShareTheirFamilies() throws Exception {
    PrometheusMeterRegistry cells = registry();
    PrometheusMeterRegistry micrometer = registry();
    for (String target : List.of("a:1", "b:2")) {
      calls(new RpcMeters(cells, Tags.of("grpc.target", target), RpcMeterNames.GRPC_CLIENT, true));
      calls(new RpcMeters(micrometer, Tags.of("grpc.target", target), RpcMeterNames.GRPC_CLIENT, false));
    }
    assertThat(lines(cells.scrape())).containsExactlyElementsOf(lines(micrometer.scrape()));
  }

  @Test
  void countsGoOnAfterAScrapeAndTheMaxIsKept() throws Exception {
    PrometheusMeterRegistry cells = registry();
    RpcMeters meters = new RpcMeters(cells, Tags.empty(), RpcMeterNames.GRPC_SERVER, true);
    for (int round = 1; round <= 3; round++) {
      CallObserver call = meters.onCallStart(CallMetadata.of("test.Echo", "Say"), SAY);
      call.onMessageReceived(10);
      call.onEnd(Status.OK, TimeUnit.MILLISECONDS.toNanos(round == 1 ? 5 : 1));
      String scrape = cells.scrape();
      assertThat(scrape)
          .contains("grpc_server_call_duration_seconds_count{application=\"bench\",grpc_method=\"test.Echo/Say\",grpc_status=\"OK\"} " + round)
          .contains("grpc_server_call_duration_seconds_max{application=\"bench\",grpc_method=\"test.Echo/Say\",grpc_status=\"OK\"} 0.005")
          .contains("grpc_server_call_started_total{application=\"bench\",grpc_method=\"test.Echo/Say\"} " + round + ".0")
          .contains("grpc_server_call_rcvd_total_compressed_message_size_bytes_sum{application=\"bench\",grpc_method=\"test.Echo/Say\",grpc_status=\"OK\"} " + (10 * round) + ".0");
    }
  }

  @Test
  void aValuesBucketIsTheFirstBoundItDoesNotExceed() {
    java.util.Random random = new java.util.Random(34);
    for (long[] bounds : List.of(RpcMeters.LATENCY_NANOS, RpcMeters.SIZE_BOUNDS)) {
      int[] starts = bounds == RpcMeters.LATENCY_NANOS ? RpcMeters.LATENCY_STARTS : RpcMeters.SIZE_STARTS;
      List<Long> values = new java.util.ArrayList<>(List.of(0L, 1L, Long.MAX_VALUE));
      for (long b : bounds) {
        values.addAll(List.of(b - 1, b, b + 1));
      }
      for (int i = 0; i < 10_000; i++) {
        values.add(random.nextLong() >>> random.nextInt(64));
      }
      for (long v : values) {
        int expected = 0;
        while (expected < bounds.length && bounds[expected] < v) {
          expected++;
        }
        assertThat(RpcMeters.bucket(bounds, starts, v)).as("bucket of %d", v).isEqualTo(expected);
      }
    }
  }
}
