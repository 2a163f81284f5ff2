package io.sluice.rpc.services.orca;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerMetricRecorder#update}: two threads replace every figure (clear, then set) as the
 * interop server's FullDuplexCall does for its out-of-band report, while a third takes reports;
 * each report has one writer's figures, never a mix nor the cleared state between.
 */
class ServerMetricRecorderUpdateTest {
  @Test
  void concurrentReplacementsAreEachSeenWholeOrNotAtAll() throws Exception {
    ServerMetricRecorder recorder = new ServerMetricRecorder();
    recorder.update(r -> r.setCpuUtilization(0.1).setMemoryUtilization(0.1).setAllUtilization(Map.of("u", 0.1)));
    int rounds = 20_000;
    AtomicReference<String> torn = new AtomicReference<>();
    CompletableFuture<Void> a = CompletableFuture.runAsync(() -> replace(recorder, 0.1, rounds));
    CompletableFuture<Void> b = CompletableFuture.runAsync(() -> replace(recorder, 0.9, rounds));
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int reports = 0;
    while (!(a.isDone() && b.isDone()) && System.nanoTime() < end && reports < 1_000_000) {
      OrcaLoadReport r = recorder.report(ServerLoad.NONE);
      reports++;
      double cpu = r.getCpuUtilization();
      if (cpu != r.getMemUtilization() || !Map.of("u", cpu).equals(r.getUtilizationMap())) {
        torn.compareAndSet(null, r.toString());
      }
    }
    a.get(30, TimeUnit.SECONDS);
    b.get(30, TimeUnit.SECONDS);
    assertThat(torn.get()).as("a report with a mix of two replacements, or none").isNull();
    assertThat(reports).isPositive();
  }

  private static void replace(ServerMetricRecorder recorder, double v, int rounds) {
    for (int i = 0; i < rounds; i++) {
      recorder.update(r -> r.clear().setCpuUtilization(v).setMemoryUtilization(v).setAllUtilization(Map.of("u", v)));
    }
  }
}
