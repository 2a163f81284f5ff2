package io.sluice.rpc.services;

import static io.sluice.rpc.services.Served.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Duration;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.services.orca.OrcaService;
import io.sluice.rpc.services.orca.ServerLoad;
import io.sluice.rpc.services.orca.ServerMetricRecorder;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import io.sluice.rpc.services.xds.service.orca.v3.OrcaLoadReportRequest;
import io.sluice.rpc.services.xds.service.orca.v3.ReactorOpenRcaServiceClient;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * xds.service.orca.v3.OpenRcaService over RSocket (TCP on 127.0.0.1), called by its generated
 * Sluice client: the report comes at once and again each interval with what was set since, the
 * server's load under the application's figures; streams are bounded and released on cancel.
 */
class OrcaServiceTest {
  private final ServerMetricRecorder recorder = new ServerMetricRecorder();
  private final ServerLoad load =
      new ServerLoad() {
        @Override
        public double utilization() {
          return 0.25;
        }

        @Override
        public double rps() {
          return 40;
        }

        @Override
        public long callsInFlight() {
          return 3;
        }
      };
  private OrcaService orca;
  private Served served;
  private ReactorOpenRcaServiceClient client;

  @BeforeEach
  void start() throws Exception {
    orca =
        OrcaService.builder()
            .load(load)
            .recorder(recorder)
            .minReportInterval(java.time.Duration.ofMillis(20))
            .maxStreams(2)
            .build();
    served = new Served(ServiceRegistry.builder().add(orca).build());
    client = new ReactorOpenRcaServiceClient(served.requester());
  }

  @AfterEach
  void stop() throws Exception {
    served.close();
    orca.close();
  }

  private static OrcaLoadReportRequest every(long millis) {
    return OrcaLoadReportRequest.newBuilder()
        .setReportInterval(Duration.newBuilder().setNanos((int) TimeUnit.MILLISECONDS.toNanos(millis)))
        .build();
  }

  private static OrcaLoadReport next(BlockingQueue<OrcaLoadReport> q) throws InterruptedException {
    OrcaLoadReport r = q.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(r).as("a report within the hang guard").isNotNull();
    return r;
  }

  private void awaitStreams(int n) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (orca.streams() != n && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertThat(orca.streams()).isEqualTo(n);
  }

  @Test
  void reportsAtOnceThenEachIntervalWithWhatWasSetOverTheLoad() throws Exception {
    recorder.setCpuUtilization(0.5).putUtilization("util", 0.3);
    BlockingQueue<OrcaLoadReport> q = new LinkedBlockingQueue<>();
    Disposable d = client.streamCoreMetrics(every(1)).subscribe(q::add);
    try {
      OrcaLoadReport first = next(q);
      assertThat(first.getCpuUtilization()).isEqualTo(0.5);
      assertThat(first.getUtilizationMap()).isEqualTo(Map.of("util", 0.3));
      assertThat(first.getApplicationUtilization()).isEqualTo(0.25);
      assertThat(first.getRpsFractional()).isEqualTo(40);
      assertThat(first.getNamedMetricsMap()).isEqualTo(Map.of(ServerLoad.CALLS_IN_FLIGHT, 3.0));

      recorder.setCpuUtilization(0.9).setApplicationUtilization(0.75).setAllUtilization(Map.of("util", 0.1));
      OrcaLoadReport later = next(q);
      for (int i = 0; i < 100 && later.getCpuUtilization() != 0.9; i++) {
        later = next(q); // a report taken before the change may still be on its way
      }
      assertThat(later.getCpuUtilization()).isEqualTo(0.9);
      assertThat(later.getApplicationUtilization()).as("the application's figure wins").isEqualTo(0.75);
      assertThat(later.getUtilizationMap()).isEqualTo(Map.of("util", 0.1));
      assertThat(later.getRequestCostMap()).isEmpty();
    } finally {
      d.dispose();
    }
    awaitStreams(0);
  }

  @Test
  void aStreamBeyondTheBoundEndsResourceExhaustedAndCancelledStreamsGiveTheirSlotBack() throws Exception {
    BlockingQueue<OrcaLoadReport> a = new LinkedBlockingQueue<>();
    BlockingQueue<OrcaLoadReport> b = new LinkedBlockingQueue<>();
    Disposable da = client.streamCoreMetrics(every(1000)).subscribe(a::add);
    Disposable db = client.streamCoreMetrics(every(1000)).subscribe(b::add);
    next(a);
    next(b);
    CompletableFuture<Throwable> third = new CompletableFuture<>();
    Disposable dc = client.streamCoreMetrics(every(1000)).subscribe(r -> {}, third::complete);
    Throwable t = third.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(t).isInstanceOf(StatusException.class);
    assertThat(((StatusException) t).code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    dc.dispose();

    da.dispose();
    awaitStreams(1);
    BlockingQueue<OrcaLoadReport> c = new LinkedBlockingQueue<>();
    Disposable dd = client.streamCoreMetrics(every(1000)).subscribe(c::add);
    next(c);
    assertThat(orca.streams()).isEqualTo(2);
    db.dispose();
    dd.dispose();
    awaitStreams(0);
  }

  /**
   * close() ends the open streams UNAVAILABLE (as a gRPC server shutting down ends its calls) and
   * stops their timers, on an executor given to the builder too (left running itself); a stream
   * opened afterwards ends UNAVAILABLE at once (before: the streams stayed open, their ticks ran on).
   */
  @Test
  void closeEndsTheOpenStreamsUnavailableAndStopsTheirTimers() throws Exception {
    java.util.concurrent.ScheduledThreadPoolExecutor timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1);
    timer.setRemoveOnCancelPolicy(true);
    OrcaService given = OrcaService.builder().load(load).minReportInterval(java.time.Duration.ofMillis(20)).timer(timer).build();
    try (Served s = new Served(ServiceRegistry.builder().add(given).build())) {
      ReactorOpenRcaServiceClient c = new ReactorOpenRcaServiceClient(s.requester());
      BlockingQueue<OrcaLoadReport> a = new LinkedBlockingQueue<>();
      BlockingQueue<OrcaLoadReport> b = new LinkedBlockingQueue<>();
      CompletableFuture<Throwable> endA = new CompletableFuture<>();
      CompletableFuture<Throwable> endB = new CompletableFuture<>();
      c.streamCoreMetrics(every(1000)).subscribe(a::add, endA::complete, () -> endA.complete(null));
      c.streamCoreMetrics(every(1000)).subscribe(b::add, endB::complete, () -> endB.complete(null));
      next(a);
      next(b);
      assertThat(given.streams()).isEqualTo(2);
      assertThat(timer.getQueue()).as("the streams' ticks").hasSize(2);

      given.close();
      for (CompletableFuture<Throwable> end : java.util.List.of(endA, endB)) {
        Throwable t = end.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(t).isInstanceOfSatisfying(
            StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
      }
      assertThat(given.streams()).isZero();
      assertThat(timer.getQueue()).as("ticks left on the given timer").isEmpty();
      assertThat(timer.isShutdown()).as("the given timer is left running").isFalse();

      CompletableFuture<Throwable> late = new CompletableFuture<>();
      c.streamCoreMetrics(every(1000)).subscribe(r -> {}, late::complete, () -> late.complete(null));
      assertThat(late.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOfSatisfying(
          StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(timer.getQueue()).isEmpty();
    } finally {
      timer.shutdownNow();
    }
  }
}
