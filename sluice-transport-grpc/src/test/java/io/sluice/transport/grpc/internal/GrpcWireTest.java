package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GrpcWireTest {
  @Test
  void recognisesGrpcContentTypes() {
    assertThat(GrpcWire.isGrpc("application/grpc")).isTrue();
    assertThat(GrpcWire.isGrpc("application/grpc+proto")).isTrue();
    assertThat(GrpcWire.isGrpc("application/grpc+json")).isTrue();
    assertThat(GrpcWire.isGrpc("Application/GRPC;charset=utf-8")).isTrue();
    assertThat(GrpcWire.isGrpc("application/grpc-web")).isFalse();
    assertThat(GrpcWire.isGrpc("application/grpcx")).isFalse();
    assertThat(GrpcWire.isGrpc("application/json")).isFalse();
    assertThat(GrpcWire.isGrpc(null)).isFalse();
  }

  @Test
  void speaksOnlyProto() {
    assertThat(GrpcWire.isProto("application/grpc")).isTrue();
    assertThat(GrpcWire.isProto("application/grpc+proto")).isTrue();
    assertThat(GrpcWire.isProto("application/grpc; charset=utf-8")).isTrue();
    assertThat(GrpcWire.isProto("application/grpc+json")).isFalse();
    assertThat(GrpcWire.isProto("application/grpc-web")).isFalse();
  }
}
