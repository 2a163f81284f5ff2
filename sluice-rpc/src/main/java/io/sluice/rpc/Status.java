package io.sluice.rpc;

import java.util.Objects;

/**
 * The outcome of an RPC call: a {@link Code} and an optional description. Immutable.
 *
 * <p>The codes and their numbers are exactly gRPC's, so a gRPC transport maps them one to one onto
 * {@code grpc-status}. How a status travels over RSocket is written down in
 * docs/rpc-wire-format.md.
 *
 * <p>Safe to share between threads. Holds no buffers.
 */
public final class Status {

  /** Status codes, numbered as gRPC numbers them. */
  public enum Code {
    OK(0),
    CANCELLED(1),
    UNKNOWN(2),
    INVALID_ARGUMENT(3),
    DEADLINE_EXCEEDED(4),
    NOT_FOUND(5),
    ALREADY_EXISTS(6),
    PERMISSION_DENIED(7),
    RESOURCE_EXHAUSTED(8),
    FAILED_PRECONDITION(9),
    ABORTED(10),
    OUT_OF_RANGE(11),
    UNIMPLEMENTED(12),
    INTERNAL(13),
    UNAVAILABLE(14),
    DATA_LOSS(15),
    UNAUTHENTICATED(16);

    private static final Code[] BY_VALUE = values();
    private final int value;

    Code(int value) {
      this.value = value;
    }

    /** The code's number (the gRPC {@code grpc-status} value). */
    public int value() {
      return value;
    }

    /** The code with number {@code value}, or {@link #UNKNOWN} for numbers outside 0..16. */
    public static Code fromValue(int value) {
      return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : UNKNOWN;
    }

    /** This code as a status without description. */
    public Status toStatus() {
      return new Status(this, "");
    }
  }

  /** The successful status. */
  public static final Status OK = new Status(Code.OK, "");

  private final Code code;
  private final String description;

  private Status(Code code, String description) {
    this.code = code;
    this.description = description;
  }

  /** A status with {@code code} and {@code description} (null means empty). */
  public static Status of(Code code, String description) {
    return new Status(Objects.requireNonNull(code, "code"), description == null ? "" : description);
  }

  /**
   * The status a failure stands for: the status of a {@link StatusException}, {@link
   * Code#UNKNOWN} with the throwable's text otherwise.
   */
  public static Status fromThrowable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StatusException) {
        return ((StatusException) c).status();
      }
    }
    return of(Code.UNKNOWN, t == null ? "" : String.valueOf(t.getMessage() != null ? t.getMessage() : t));
  }

  public Code code() {
    return code;
  }

  /** The description; empty when there is none. */
  public String description() {
    return description;
  }

  public boolean isOk() {
    return code == Code.OK;
  }

  /** A copy with another description. */
  public Status withDescription(String description) {
    return of(code, description);
  }

  /** An exception carrying this status. */
  public StatusException asException() {
    return new StatusException(this);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Status && ((Status) o).code == code && ((Status) o).description.equals(description);
  }

  @Override
  public int hashCode() {
    return code.hashCode() * 31 + description.hashCode();
  }

  @Override
  public String toString() {
    return description.isEmpty() ? code.name() : code.name() + ": " + description;
  }
}
