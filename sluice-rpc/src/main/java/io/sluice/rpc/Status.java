package io.sluice.rpc;

import java.util.Objects;

/**
 * The outcome of an RPC call: a {@link Code} and an optional description. Immutable.
 *
 * <p>The codes and their numbers are exactly gRPC's, so a gRPC transport maps them one to one onto
 * {@code grpc-status}. How a status travels over RSocket is written down in
 * docs/rpc-wire-format.md.
 *
 * <p>A status may carry a {@link #cause()}: the failure it was made from, for the server's own
 * logs and for local callers. The cause never travels: only the code and the description do.
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
  private final Throwable cause; // never sent

  private Status(Code code, String description) {
    this(code, description, null);
  }

  private Status(Code code, String description, Throwable cause) {
    this.code = code;
    this.description = description;
    this.cause = cause;
  }

  /** A status with {@code code} and {@code description} (null means empty). */
  public static Status of(Code code, String description) {
    return new Status(Objects.requireNonNull(code, "code"), description == null ? "" : description);
  }

  /**
   * The status a failure stands for: the status of the first {@link StatusException} in its cause
   * chain; otherwise {@link Code#UNKNOWN} with no description and {@code t} as its {@link #cause()}.
   * The throwable's text is left out on purpose: a server sends the description to its callers,
   * and an exception's message can name hosts, users, paths or SQL (grpc-java's {@code
   * Status.fromThrowable} leaves it out too). A handler that wants the caller to read a text ends
   * the call with a {@link StatusException} or a {@link Status} of its choice; {@link
   * ServerInterceptors#exposeErrorMessages()} sends every handler's exception text instead.
   */
  public static Status fromThrowable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StatusException) {
        return ((StatusException) c).status();
      }
    }
    return new Status(Code.UNKNOWN, "", t);
  }

  /**
   * The text of {@code t} as this class used to put it in a description: its message, or its
   * {@code toString()} when it has none; empty for null. For local use and for {@link
   * ServerInterceptors#exposeErrorMessages()}.
   */
  static String textOf(Throwable t) {
    return t == null ? "" : String.valueOf(t.getMessage() != null ? t.getMessage() : t);
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

  /** The failure this status was made from ({@link #fromThrowable}), or null. Never sent to a peer. */
  public Throwable cause() {
    return cause;
  }

  /** A copy with another description (the cause is kept). */
  public Status withDescription(String description) {
    return new Status(code, description == null ? "" : description, cause);
  }

  /** A copy with {@code cause} (null: none). The cause stays local: it is not sent to a peer. */
  public Status withCause(Throwable cause) {
    return new Status(code, description, cause);
  }

  /** An exception carrying this status. */
  public StatusException asException() {
    return new StatusException(this);
  }

  /** Code and description; the {@link #cause()} takes no part. */
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
