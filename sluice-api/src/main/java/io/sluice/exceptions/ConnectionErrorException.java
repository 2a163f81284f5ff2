package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** CONNECTION_ERROR (0x101): the connection failed and is closed; every stream on it ends. */
public final class ConnectionErrorException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public ConnectionErrorException(String message) {
    super(ErrorCode.CONNECTION_ERROR, message);
  }

  public ConnectionErrorException(String message, Throwable cause) {
    super(ErrorCode.CONNECTION_ERROR, message, cause);
  }

  private ConnectionErrorException(String message, boolean stackless, boolean requestNotSent) {
    super(ErrorCode.CONNECTION_ERROR, message, stackless, requestNotSent);
  }

  /** A connection error without a stack trace, for limits a peer can breach at will. */
  public static ConnectionErrorException stackless(String message) {
    return new ConnectionErrorException(message, true, false);
  }

  /**
   * A requester's refusal of a request on a connection that is closed, before any of it was sent,
   * without a stack trace: {@link #requestNotSent()} is true.
   */
  public static ConnectionErrorException notSent(String message) {
    return new ConnectionErrorException(message, true, true);
  }
}
