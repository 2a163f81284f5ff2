package io.sluice.micrometer;

import io.micrometer.core.instrument.Tags;
import io.sluice.rpc.Status;

/**
 * The names and attribute keys of one family of RPC meters. Two are defined: {@link #GRPC_SERVER}
 * (gRFC A66, exactly as grpc-java's OpenTelemetry plugin names them, so gRPC dashboards work
 * unchanged) and {@link #RSOCKET_SERVER} (OpenTelemetry's RPC semantic conventions). The client
 * side ({@code grpc.client.attempt.*}, {@code grpc.client.call.duration}, {@code
 * rpc.client.call.duration}) will be two more, fed by client interceptors.
 */
record RpcMeterNames(
    String started,
    String duration,
    String sentSize,
    String receivedSize,
    String statusTag,
    boolean grpc) {

  /** gRFC A66, server side: {@code grpc.method}, {@code grpc.status}. */
  static final RpcMeterNames GRPC_SERVER =
      new RpcMeterNames(
          "grpc.server.call.started",
          "grpc.server.call.duration",
          "grpc.server.call.sent_total_compressed_message_size",
          "grpc.server.call.rcvd_total_compressed_message_size",
          "grpc.status",
          true);

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
          false);

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
