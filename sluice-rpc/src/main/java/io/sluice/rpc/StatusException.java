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

  public StatusException(Status status) {
    this(status, null);
  }

  public StatusException(Status status, Throwable cause) {
    super(Objects.requireNonNull(status, "status").toString(), cause);
    this.status = status;
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
}
