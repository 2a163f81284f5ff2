package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** CONNECTION_CLOSE (0x102): the peer is closing gracefully; no new streams are accepted. */
public final class ConnectionCloseException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public ConnectionCloseException(String message) {
    super(ErrorCode.CONNECTION_CLOSE, message);
  }

  public ConnectionCloseException(String message, Throwable cause) {
    super(ErrorCode.CONNECTION_CLOSE, message, cause);
  }

  private ConnectionCloseException(String message, boolean requestNotSent) {
    super(ErrorCode.CONNECTION_CLOSE, message, true, requestNotSent);
  }

  /**
   * A requester's refusal of a request on a connection that is closing, before any of it was sent,
   * without a stack trace: {@link #requestNotSent()} is true.
   */
  public static ConnectionCloseException notSent(String message) {
    return new ConnectionCloseException(message, true);
  }
}
