package io.sluice.rpc.grpcstub;

import io.grpc.StatusRuntimeException;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;

/** Maps between Sluice {@link Status} and gRPC's {@link io.grpc.Status}; the codes are the same numbers. */
final class GrpcStatuses {
  private GrpcStatuses() {}

  /** What a gRPC client observer receives for a failed call. */
  static StatusRuntimeException toGrpc(Throwable t) {
    if (t instanceof StatusRuntimeException) {
      return (StatusRuntimeException) t;
    }
    Status s = Status.fromThrowable(t);
    return io.grpc.Status.fromCodeValue(s.code().value())
        .withDescription(s.description().isEmpty() ? null : s.description())
        .withCause(t)
        .asRuntimeException();
  }

  /** What the Sluice call model sends for an error a gRPC handler reported. */
  static Throwable toSluice(Throwable t) {
    io.grpc.Status g = null;
    if (t instanceof StatusRuntimeException) {
      g = ((StatusRuntimeException) t).getStatus();
    } else if (t instanceof io.grpc.StatusException) {
      g = ((io.grpc.StatusException) t).getStatus();
    }
    if (g == null) {
      return t;
    }
    return new StatusException(
        Status.of(Status.Code.fromValue(g.getCode().value()), g.getDescription()), t);
  }
}
