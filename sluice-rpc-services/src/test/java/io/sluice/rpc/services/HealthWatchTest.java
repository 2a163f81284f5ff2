package io.sluice.rpc.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckRequest;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.sluice.rpc.services.grpc.health.v1.ReactorHealth;
import org.junit.jupiter.api.Test;

/** A Watch call on the neutral call model: it sends only within demand and keeps only the newest. */
class HealthWatchTest {
  private final HealthService health = new HealthService();

  @SuppressWarnings("unchecked")
  private ServerCall.Listener<HealthCheckRequest> start(FakeCall<HealthCheckRequest, HealthCheckResponse> call) {
    ServerMethodDefinition<HealthCheckRequest, HealthCheckResponse> watch =
        (ServerMethodDefinition<HealthCheckRequest, HealthCheckResponse>)
            health.bindService().method(ReactorHealth.METHOD_WATCH);
    return watch.handler().startCall(call);
  }

  private static ServingStatus[] statuses(FakeCall<HealthCheckRequest, HealthCheckResponse> call) {
    return call.sent.stream().map(HealthCheckResponse::getStatus).toArray(ServingStatus[]::new);
  }

  @Test
  void aSlowReaderGetsTheNewestStatusOnly() {
    FakeCall<HealthCheckRequest, HealthCheckResponse> call = new FakeCall<>(ReactorHealth.WATCH);
    ServerCall.Listener<HealthCheckRequest> l = start(call);
    assertThat(call.requested).isEqualTo(1);
    l.onMessage(HealthCheckRequest.newBuilder().setService("s").build());
    l.onHalfClose();
    assertThat(call.sent).as("no demand yet").isEmpty();

    l.onReady(1);
    assertThat(statuses(call)).containsExactly(ServingStatus.SERVICE_UNKNOWN);
    health.setStatus("s", ServingStatus.SERVING);
    health.clearStatus("s"); // back to what was sent: nothing new to say
    l.onReady(1);
    assertThat(statuses(call)).containsExactly(ServingStatus.SERVICE_UNKNOWN);

    health.setStatus("s", ServingStatus.SERVING);
    health.setStatus("s", ServingStatus.NOT_SERVING);
    health.setStatus("s", ServingStatus.SERVING);
    assertThat(statuses(call)).as("one demanded: the first change goes").containsExactly(
        ServingStatus.SERVICE_UNKNOWN, ServingStatus.SERVING);
    health.setStatus("s", ServingStatus.NOT_SERVING);
    health.setStatus("s", ServingStatus.SERVING);
    health.setStatus("s", ServingStatus.NOT_SERVING);
    assertThat(call.sent).as("no demand: held back").hasSize(2);
    l.onReady(5);
    assertThat(statuses(call)).as("only the newest").containsExactly(
        ServingStatus.SERVICE_UNKNOWN, ServingStatus.SERVING, ServingStatus.NOT_SERVING);
    health.setStatus("s", ServingStatus.NOT_SERVING); // unchanged: not sent again
    health.setStatus("s", ServingStatus.SERVING); // demand left: sent at once
    assertThat(statuses(call)).containsExactly(
        ServingStatus.SERVICE_UNKNOWN, ServingStatus.SERVING, ServingStatus.NOT_SERVING, ServingStatus.SERVING);
    assertThat(call.closed).as("a watch does not end by itself").isNull();

    l.onCancel();
    assertThat(health.watchCount()).isZero();
  }

  @Test
  void aWatchWithoutARequestFails() {
    FakeCall<HealthCheckRequest, HealthCheckResponse> call = new FakeCall<>(ReactorHealth.WATCH);
    start(call).onHalfClose();
    assertThat(call.closed.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }
}
