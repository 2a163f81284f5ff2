package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** INVALID_SETUP (0x001): the SETUP frame was malformed or not the first frame. */
public final class InvalidSetupException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public InvalidSetupException(String message) {
    super(ErrorCode.INVALID_SETUP, message);
  }

  public InvalidSetupException(String message, Throwable cause) {
    super(ErrorCode.INVALID_SETUP, message, cause);
  }

}
