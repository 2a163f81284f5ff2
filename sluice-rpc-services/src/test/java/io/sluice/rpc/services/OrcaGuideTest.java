package io.sluice.rpc.services;

import static io.sluice.rpc.services.Served.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.lease.adaptive.AdaptiveLeasePolicy;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.rpc.services.orca.CallMetricRecorder;
import io.sluice.rpc.services.orca.OrcaServerInterceptor;
import io.sluice.rpc.services.orca.OrcaService;
import io.sluice.rpc.services.orca.ServerLoad;
import io.sluice.rpc.services.orca.ServerMetricRecorder;
import io.sluice.rpc.services.test.GreetRequest;
import io.sluice.rpc.services.test.Greeting;
import io.sluice.rpc.services.test.ReactorGreeter;
import io.sluice.rpc.services.test.ReactorGreeterServer;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import io.sluice.rpc.services.xds.service.orca.v3.OrcaLoadReportRequest;
import io.sluice.rpc.services.xds.service.orca.v3.ReactorOpenRcaServiceClient;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The ORCA code of docs/guide/observability.md, run over RSocket: a handler's per-call figures come
 * back in the call's endpoint-load-metrics-bin trailer (to a caller reading response metadata) over
 * the server's, and the out-of-band stream carries the lease policy's figures and the server's.
 */
class OrcaGuideTest {
  // tag::handler[]
  static final ReactorGreeter GREETER =
      new ReactorGreeter() {
        @Override
        public Mono<Greeting> greet(GreetRequest request) {
          CallMetricRecorder.current() // this call's recorder, while its handler runs
              .recordRequestCost("db_reads", 3)
              .recordUtilization("disk", 0.4);
          return Mono.just(Greeting.newBuilder().setText("hello " + request.getName()).build());
        }

        @Override
        public Flux<Greeting> greetMany(GreetRequest request) {
          return Flux.empty();
        }
      };
  // end::handler[]

  @Test
  void perCallAndOutOfBandReports() throws Exception {
    AdaptiveLeasePolicy policy = AdaptiveLeasePolicy.withDefaults(); // also the server's lease policy
    // tag::wiring[]
    ServerLoad load = ServerLoad.of(policy.stats()); // utilization, rps, calls in flight
    ServerMetricRecorder recorder = new ServerMetricRecorder(); // the application's own figures
    OrcaService orca = OrcaService.builder().load(load).recorder(recorder).build();
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(ServerInterceptors.intercept(
                new ReactorGreeterServer(GREETER), OrcaServerInterceptor.create(load, recorder)))
            .add(orca) // xds.service.orca.v3.OpenRcaService
            .build();
    recorder.setCpuUtilization(0.35); // whenever the application measures it
    // end::wiring[]
    try (orca; Served served = new Served(registry)) {
      ResponseMetadataCapture capture = new ResponseMetadataCapture();
      Greeting g =
          ReactorClientCalls.unary(
                  new ReactorRequester(served.requester()),
                  ReactorGreeter.GREET,
                  CallOptions.DEFAULT.withResponseMetadata(capture),
                  GreetRequest.newBuilder().setName("orca").build())
              .block(WAIT);
      assertThat(g.getText()).isEqualTo("hello orca");
      OrcaLoadReport perCall =
          OrcaLoadReport.parseFrom(capture.trailers().getBinary(OrcaServerInterceptor.TRAILER));
      assertThat(perCall.getRequestCostMap()).isEqualTo(Map.of("db_reads", 3.0));
      assertThat(perCall.getUtilizationMap()).isEqualTo(Map.of("disk", 0.4));
      assertThat(perCall.getCpuUtilization()).isEqualTo(0.35);
      assertThat(perCall.getNamedMetricsMap()).containsKey(ServerLoad.CALLS_IN_FLIGHT);

      OrcaLoadReport oob =
          new ReactorOpenRcaServiceClient(served.requester())
              .streamCoreMetrics(OrcaLoadReportRequest.getDefaultInstance())
              .blockFirst(WAIT);
      assertThat(oob.getCpuUtilization()).isEqualTo(0.35);
      assertThat(oob.getRequestCostMap()).isEmpty();
      assertThat(oob.getNamedMetricsMap()).containsKey(ServerLoad.CALLS_IN_FLIGHT);
    }
  }
}
