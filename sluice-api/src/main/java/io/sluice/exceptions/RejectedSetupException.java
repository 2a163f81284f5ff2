package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** REJECTED_SETUP (0x003): the server refused this client's SETUP. */
public final class RejectedSetupException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public RejectedSetupException(String message) {
    super(ErrorCode.REJECTED_SETUP, message);
  }

  public RejectedSetupException(String message, Throwable cause) {
    super(ErrorCode.REJECTED_SETUP, message, cause);
  }

}
