package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.RpcInstrumentation.CallObserver;
import io.sluice.rpc.Status;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What a Prometheus scrape of the RPC meters shows, pinned on the Micrometer-native path: a faster path
 * for PrometheusMeterRegistry must show the same. The first two fail on the reverted per-thread cells
 * path (0e340d52, reverted in 382e1ceb): rows sharing a meter id counted once, a _max that does not
 * follow the registry's clock and window. The third passes there too: its duplicate families came from
 * a scrape racing the registration of a new series, which this single-threaded case does not reach.
 */
class RpcMetersScrapeTest {
  private final MockClock clock = new MockClock();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), clock);

  private static MethodDescriptor<BytesValue, BytesValue> method(String service, String name) {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service(service)
        .method(name)
        .kind(MethodKind.UNARY)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  private static void call(RpcInstrumentation in, MethodDescriptor<?, ?> m, long nanos) {
    CallObserver o = in.onCallStart(null, m);
    o.onMessageReceived(3);
    o.onMessageSent(5);
    o.onEnd(Status.of(Status.Code.OK, ""), nanos);
  }

  /**
   * The scrape's lines that start with a prefix, e.g. {@code rpc_server_call_started_total{}; of the
   * samples, only the test services' (not the "other" row the meters make up front).
   */
  private List<String> lines(String prefix) {
    return Arrays.stream(registry.scrape().split("\n"))
        .filter(l -> l.startsWith(prefix))
        .filter(l -> l.startsWith("#") || l.contains("rpc_service=\"test."))
        .collect(Collectors.toList());
  }

  private static double value(String line) {
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  @Test
  void rowsThatShareAMeterIdAddUpInTheirSeries() {
    // A filter dropping the method tag: two methods end in one started counter and one timer.
    registry.config().meterFilter(MeterFilter.ignoreTags("rpc.method"));
    RpcInstrumentation one = SluiceMetrics.of(registry).rsocketServer();
    RpcInstrumentation two = SluiceMetrics.of(registry).rsocketServer(); // a second server on the registry
    for (int i = 0; i < 3; i++) {
      call(one, method("test.A", "Say"), 1_000_000);
      call(two, method("test.A", "Shout"), 1_000_000);
    }
    call(one, method("test.A", "Shout"), 1_000_000);
    List<String> started = lines("rpc_server_call_started_total{");
    assertThat(started).hasSize(1);
    assertThat(value(started.get(0))).isEqualTo(7.0);
    List<String> count = lines("rpc_server_call_duration_seconds_count{");
    assertThat(count).hasSize(1);
    assertThat(value(count.get(0))).isEqualTo(7.0);
  }

  @Test
  void theMaxIsKeptForThreeStepsOfTheRegistry() {
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    call(in, method("test.A", "Say"), TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(value(lines("rpc_server_call_duration_seconds_max{").get(0))).isEqualTo(0.005);
    // Micrometer's window: the registry's step (1 min) times the buffer length (3). Not one step.
    clock.add(Duration.ofSeconds(150));
    assertThat(value(lines("rpc_server_call_duration_seconds_max{").get(0))).isEqualTo(0.005);
    clock.add(Duration.ofSeconds(60));
    assertThat(value(lines("rpc_server_call_duration_seconds_max{").get(0))).isEqualTo(0.0);
  }

  @Test
  void eachFamilyIsShownOnceWhenASeriesIsNewSinceTheLastScrape() {
    RpcInstrumentation in = SluiceMetrics.of(registry).rsocketServer();
    call(in, method("test.A", "Say"), 1_000_000);
    registry.scrape();
    call(in, method("test.B", "Say"), 1_000_000); // a new series in families already shown
    List<String> types = lines("# TYPE ");
    assertThat(types).doesNotHaveDuplicates();
    assertThat(types).anyMatch(l -> l.startsWith("# TYPE rpc_server_call_duration_seconds "));
    assertThat(lines("rpc_server_call_started_total{")).hasSize(2);
  }
}
