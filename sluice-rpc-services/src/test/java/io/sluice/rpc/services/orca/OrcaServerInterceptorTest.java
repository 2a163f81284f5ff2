package io.sluice.rpc.services.orca;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import io.sluice.rpc.services.xds.service.orca.v3.OrcaLoadReportRequest;
import io.sluice.rpc.services.xds.service.orca.v3.ReactorOpenRcaService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The per-call report: what the handler records in {@link CallMetricRecorder#current()} during its
 * callbacks ends up, over the server's figures, in the call's endpoint-load-metrics-bin trailer
 * beside the handler's own trailers; nothing to report means no trailer; outside a call the
 * current recorder is disabled.
 */
class OrcaServerInterceptorTest {
  private static final MethodDescriptor<OrcaLoadReportRequest, OrcaLoadReport> METHOD =
      ReactorOpenRcaService.STREAM_CORE_METRICS;

  /** Records how the call ended. One thread. */
  private static final class Ended implements ServerCall<OrcaLoadReportRequest, OrcaLoadReport> {
    Status status;
    Headers trailers;

    @Override public CallMetadata metadata() { return CallMetadata.of("s", "m"); }
    @Override public MethodDescriptor<OrcaLoadReportRequest, OrcaLoadReport> method() { return METHOD; }
    @Override public void request(long n) {}
    @Override public void sendMessage(OrcaLoadReport message) {}
    @Override public void close(Status status) { close(status, Headers.EMPTY); }

    @Override
    public void close(Status status, Headers trailers) {
      if (this.status == null) {
        this.status = status;
        this.trailers = trailers;
      }
    }

    @Override public boolean isClosed() { return status != null; }

    OrcaLoadReport report() throws Exception {
      byte[] bytes = trailers.getBinary(OrcaServerInterceptor.TRAILER);
      return bytes == null ? null : OrcaLoadReport.parseFrom(bytes);
    }
  }

  /** A handler that records in onMessage (the current recorder) and ends in onHalfClose. */
  private static ServerCall.Listener<OrcaLoadReportRequest> handler(
      ServerCall<OrcaLoadReportRequest, OrcaLoadReport> call, List<CallMetricRecorder> seen, boolean record) {
    seen.add(CallMetricRecorder.current());
    return new ServerCall.Listener<>() {
      @Override
      public void onMessage(OrcaLoadReportRequest message) {
        CallMetricRecorder r = CallMetricRecorder.current();
        seen.add(r);
        if (record) {
          r.recordCpuUtilization(0.821)
              .recordMemoryUtilization(0.5847)
              .recordRequestCost("cost", 3456.32)
              .recordUtilization("util", 0.30499)
              .recordUtilization("too-much", 1.5) // out of range: ignored
              .recordCpuUtilization(-1); // out of range: ignored, the earlier value stays
        }
      }

      @Override
      public void onHalfClose() {
        call.close(Status.OK, Headers.of("x-mine", "kept"));
      }

      @Override public void onCancel() {}
      @Override public void onReady(long n) {}
    };
  }

  @Test
  void whatTheHandlerRecordsGoesOutInTheTrailerOverTheServersFigures() throws Exception {
    ServerMetricRecorder server = new ServerMetricRecorder().setCpuUtilization(0.1).setEps(2).putUtilization("util", 0.9);
    OrcaServerInterceptor orca = OrcaServerInterceptor.create(ServerLoad.NONE, server);
    Ended call = new Ended();
    List<CallMetricRecorder> seen = new ArrayList<>();
    ServerCall.Listener<OrcaLoadReportRequest> l = orca.interceptCall(call, c -> handler(c, seen, true));
    l.onMessage(OrcaLoadReportRequest.getDefaultInstance());
    assertThat(CallMetricRecorder.current().isEnabled()).as("outside the callbacks").isFalse();
    l.onHalfClose();

    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).isSameAs(seen.get(1));
    assertThat(seen.get(0).isEnabled()).isTrue();
    assertThat(call.status).isEqualTo(Status.OK);
    assertThat(call.trailers.get("x-mine")).isEqualTo("kept");
    OrcaLoadReport report = call.report();
    assertThat(report.getCpuUtilization()).isEqualTo(0.821);
    assertThat(report.getMemUtilization()).isEqualTo(0.5847);
    assertThat(report.getEps()).as("the server's, not recorded by the call").isEqualTo(2);
    assertThat(report.getRequestCostMap()).isEqualTo(Map.of("cost", 3456.32));
    assertThat(report.getUtilizationMap()).isEqualTo(Map.of("util", 0.30499));
  }

  @Test
  void aCallWithNothingToReportGetsNoTrailerAndEachCallItsOwnRecorder() throws Exception {
    OrcaServerInterceptor orca = OrcaServerInterceptor.create();
    Ended quiet = new Ended();
    List<CallMetricRecorder> seen = new ArrayList<>();
    ServerCall.Listener<OrcaLoadReportRequest> l = orca.interceptCall(quiet, c -> handler(c, seen, false));
    l.onMessage(OrcaLoadReportRequest.getDefaultInstance());
    l.onHalfClose();
    assertThat(quiet.report()).isNull();
    assertThat(quiet.trailers.get("x-mine")).isEqualTo("kept");

    Ended loud = new Ended();
    ServerCall.Listener<OrcaLoadReportRequest> l2 = orca.interceptCall(loud, c -> handler(c, seen, true));
    l2.onMessage(OrcaLoadReportRequest.getDefaultInstance());
    l2.onHalfClose();
    assertThat(seen.get(2)).isNotSameAs(seen.get(0));
    assertThat(loud.report().getCpuUtilization()).isEqualTo(0.821);
  }

  @Test
  void theDisabledRecorderIgnoresEverything() {
    CallMetricRecorder r = CallMetricRecorder.current();
    assertThat(r.isEnabled()).isFalse();
    r.recordCpuUtilization(0.5).recordNamedMetric("x", 1);
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    r.writeTo(b);
    assertThat(b.build()).isEqualTo(OrcaLoadReport.getDefaultInstance());
  }

  @Test
  void mapsAreBoundedInNamesAndNameLength() {
    CallMetricRecorder r = CallMetricRecorder.forCall();
    for (int i = 0; i < LoadValues.MAX_ENTRIES + 10; i++) {
      r.recordNamedMetric("m" + i, i);
    }
    r.recordRequestCost("x".repeat(LoadValues.MAX_NAME_LENGTH + 1), 1);
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    r.writeTo(b);
    assertThat(b.getNamedMetricsCount()).isEqualTo(LoadValues.MAX_ENTRIES);
    assertThat(b.getRequestCostCount()).isZero();
  }

  @Test
  void aReportTooLargeForAClientsHeaderListKeepsOnlyItsFixedFigures() {
    OrcaServerInterceptor orca = OrcaServerInterceptor.create();
    CallMetricRecorder r = CallMetricRecorder.forCall();
    r.recordCpuUtilization(0.25);
    for (int i = 0; i < LoadValues.MAX_ENTRIES; i++) {
      r.recordNamedMetric((i + "-" + "n".repeat(LoadValues.MAX_NAME_LENGTH)).substring(0, LoadValues.MAX_NAME_LENGTH), i);
    }
    Headers trailers = orca.withReport(Headers.EMPTY, r);
    byte[] bytes = trailers.getBinary(OrcaServerInterceptor.TRAILER);
    assertThat(bytes).isNotNull();
    // base64 of at most this, with the name, fits an 8 KiB header list
    assertThat(bytes.length).isLessThanOrEqualTo(OrcaServerInterceptor.MAX_REPORT_BYTES);
    OrcaLoadReport report = parse(bytes);
    assertThat(report.getCpuUtilization()).isEqualTo(0.25);
    assertThat(report.getNamedMetricsCount()).isZero();
  }

  private static OrcaLoadReport parse(byte[] bytes) {
    try {
      return OrcaLoadReport.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
