package io.sluice.grpcstub;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.SluiceException;

/**
 * Maps stream errors to what gRPC code expects. A responder's {@code onError(StatusRuntimeException)}
 * travels as RSocket APPLICATION_ERROR whose message is the status' {@code "CODE: description"};
 * the requester turns such a message back into that {@link Status}. Other errors become {@code
 * UNKNOWN} (RSocket CANCELED becomes {@code CANCELLED}), always with the original as the cause.
 *
 * <p>Stateless: call it from any thread. Holds no buffers.
 */
public final class GrpcErrors {
  private GrpcErrors() {}

  /** The {@link StatusRuntimeException} a gRPC observer receives for {@code error}. */
  public static StatusRuntimeException toStatus(Throwable error) {
    if (error instanceof StatusRuntimeException) {
      return (StatusRuntimeException) error;
    }
    if (error instanceof StatusException) {
      StatusException e = (StatusException) error;
      return e.getStatus().asRuntimeException(e.getTrailers());
    }
    if (error instanceof CanceledException) {
      return Status.CANCELLED.withDescription(error.getMessage()).withCause(error).asRuntimeException();
    }
    String message = error.getMessage();
    if (error instanceof SluiceException && message != null) {
      int colon = message.indexOf(": ");
      String code = colon > 0 ? message.substring(0, colon) : message;
      for (Status.Code c : Status.Code.values()) {
        if (c.name().equals(code)) {
          String description = colon > 0 ? message.substring(colon + 2) : null;
          return Status.fromCode(c).withDescription(description).withCause(error).asRuntimeException();
        }
      }
    }
    return Status.UNKNOWN.withDescription(message).withCause(error).asRuntimeException();
  }
}
