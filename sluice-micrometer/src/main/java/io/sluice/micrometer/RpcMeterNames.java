package io.sluice.micrometer;

import io.micrometer.core.instrument.Tags;
import io.sluice.rpc.Status;

/**
 * The names and attribute keys of one family of RPC meters. Four are defined: {@link #GRPC_SERVER}
 * and {@link #GRPC_CLIENT} (gRFC A66, exactly as grpc-java's OpenTelemetry plugin names them, so
 * gRPC dashboards work unchanged) and {@link #RSOCKET_SERVER} and {@link #RSOCKET_CLIENT}
 * (OpenTelemetry's RPC semantic conventions). The client families are fed by a client interceptor
 * ({@link RpcClientMeters}).
 *
 * @param callDuration a second duration histogram recorded with {@code duration} (A66's client
 *     {@code grpc.client.call.duration} beside {@code grpc.client.attempt.duration}), or null
 */
record RpcMeterNames(
    String started,
    String duration,
    String sentSize,
    String receivedSize,
    String statusTag,
    boolean grpc,
    String callDuration) {

  /** gRFC A66, server side: {@code grpc.method}, {@code grpc.status}. */
  static final RpcMeterNames GRPC_SERVER =
      new RpcMeterNames(
          "grpc.server.call.started",
          "grpc.server.call.duration",
          "grpc.server.call.sent_total_compressed_message_size",
          "grpc.server.call.rcvd_total_compressed_message_size",
          "grpc.status",
          true,
          null);

  /**
   * OpenTelemetry RPC semantic conventions, server side: {@code rpc.system=sluice}, {@code
   * rpc.service}, {@code rpc.method}, {@code rpc.response.status_code} (the gRPC code name).
   */
  static final RpcMeterNames RSOCKET_SERVER =
      new RpcMeterNames(
          "rpc.server.call.started",
          "rpc.server.call.duration",
          "rpc.server.response.size",
          "rpc.server.request.size",
          "rpc.response.status_code",
          false,
          null);

  /**
   * gRFC A66, client side: {@code grpc.method}, {@code grpc.target}, {@code grpc.status}. An
   * interceptor sees each call once, so each call is one attempt here (a balancer's retries,
   * beneath the interceptors, are {@code sluice.balancer.retries}).
   */
  static final RpcMeterNames GRPC_CLIENT =
      new RpcMeterNames(
          "grpc.client.attempt.started",
          "grpc.client.attempt.duration",
          "grpc.client.attempt.sent_total_compressed_message_size",
          "grpc.client.attempt.rcvd_total_compressed_message_size",
          "grpc.status",
          true,
          "grpc.client.call.duration");

  /**
   * OpenTelemetry RPC semantic conventions, client side: {@code rpc.system=sluice}, {@code
   * rpc.service}, {@code rpc.method}, {@code rpc.response.status_code}, and {@code server.address}
   * naming the target.
   */
  static final RpcMeterNames RSOCKET_CLIENT =
      new RpcMeterNames(
          "rpc.client.call.started",
          "rpc.client.call.duration",
          "rpc.client.request.size",
          "rpc.client.response.size",
          "rpc.response.status_code",
          false,
          null);

  /** The tag naming a client's target: A66's {@code grpc.target}, OpenTelemetry's {@code server.address}. */
  String targetTag() {
    return grpc ? "grpc.target" : "server.address";
  }

  /** The tags naming a method ({@code other} for every part of an unknown one). */
  Tags methodTags(String fullName, String service, String method) {
    if (grpc) {
      return Tags.of("grpc.method", fullName);
    }
    return Tags.of("rpc.system", "sluice", "rpc.service", service, "rpc.method", method);
  }

  /** A status as its tag value: the code's name, as both conventions write it. */
  String statusValue(Status.Code code) {
    return code.name();
  }
}
