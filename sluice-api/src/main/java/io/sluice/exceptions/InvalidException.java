package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** INVALID (0x204): the request was invalid. */
public final class InvalidException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public InvalidException(String message) {
    super(ErrorCode.INVALID, message);
  }

  public InvalidException(String message, Throwable cause) {
    super(ErrorCode.INVALID, message, cause);
  }

}
