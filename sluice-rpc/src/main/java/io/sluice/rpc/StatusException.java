package io.sluice.rpc;

import java.util.Objects;

/**
 * A failed RPC call: carries the call's {@link Status}. Handlers throw (or emit) it to end a call
 * with a chosen status; clients receive it for every failed call.
 *
 * <p>May be thrown on any thread and handed between threads. Holds no buffers.
 */
public class StatusException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient Status status;
  private final transient Headers trailers;

  public StatusException(Status status) {
    this(status, null);
  }

  public StatusException(Status status, Throwable cause) {
    this(status, Headers.EMPTY, cause);
  }

  /**
   * A failure that ends the call with {@code status} and {@code trailers} (gRPC's trailing
   * metadata, e.g. a binary {@code grpc-status-details-bin}): a handler that fails with it ends the
   * call as {@link ServerCall#close(Status, Headers)} would.
   */
  public StatusException(Status status, Headers trailers, Throwable cause) {
    super(Objects.requireNonNull(status, "status").toString(), cause);
    this.status = status;
    this.trailers = Objects.requireNonNull(trailers, "trailers");
  }

  /** Shorthand for {@code new StatusException(Status.of(code, description))}. */
  public static StatusException of(Status.Code code, String description) {
    return new StatusException(Status.of(code, description));
  }

  public Status status() {
    return status;
  }

  public Status.Code code() {
    return status.code();
  }

  /** The trailers the call ends with; {@link Headers#EMPTY} when none were given. */
  public Headers trailers() {
    return trailers == null ? Headers.EMPTY : trailers;
  }
}
