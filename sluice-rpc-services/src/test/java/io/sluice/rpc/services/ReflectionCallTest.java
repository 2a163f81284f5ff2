package io.sluice.rpc.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.reflection.v1.ReactorServerReflection;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionResponse;
import org.junit.jupiter.api.Test;

/** One reflection call on the neutral call model: one answer at a time, within demand. */
class ReflectionCallTest {

  private static ServerReflectionRequest req(String host) {
    return ServerReflectionRequest.newBuilder().setHost(host).setListServices("").build();
  }

  @Test
  void asksForTheNextRequestOnlyOnceAnAnswerWentOut() {
    FakeCall<ServerReflectionRequest, ServerReflectionResponse> call =
        new FakeCall<>(ReactorServerReflection.SERVER_REFLECTION_INFO);
    ReflectionCall<ServerReflectionRequest, ServerReflectionResponse> l =
        new ReflectionCall<>(call, r -> ServerReflectionResponse.newBuilder().setValidHost(r.getHost()).build());
    assertThat(call.requested).isEqualTo(1);

    l.onMessage(req("a"));
    assertThat(call.sent).as("no demand yet").isEmpty();
    assertThat(call.requested).as("nothing more asked while an answer waits").isEqualTo(1);
    l.onReady(1);
    assertThat(call.sent).extracting(ServerReflectionResponse::getValidHost).containsExactly("a");
    assertThat(call.requested).isEqualTo(2);

    l.onMessage(req("b"));
    l.onHalfClose();
    assertThat(call.closed).as("an answer still waits").isNull();
    l.onReady(3);
    assertThat(call.sent).extracting(ServerReflectionResponse::getValidHost).containsExactly("a", "b");
    assertThat(call.requested).as("half-closed: nothing more asked").isEqualTo(2);
    assertThat(call.closed).isEqualTo(Status.OK);
  }

  @Test
  void aFailingAnswerEndsTheCall() {
    FakeCall<ServerReflectionRequest, ServerReflectionResponse> call =
        new FakeCall<>(ReactorServerReflection.SERVER_REFLECTION_INFO);
    ReflectionCall<ServerReflectionRequest, ServerReflectionResponse> l =
        new ReflectionCall<>(call, r -> {
          throw new IllegalStateException("broken");
        });
    l.onMessage(req("a"));
    assertThat(call.closed.code()).isEqualTo(Status.Code.INTERNAL);
    assertThat(call.closed.description()).contains("broken");
  }
}
