package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** APPLICATION_ERROR (0x201): the application on the other side failed the stream. */
public final class ApplicationErrorException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public ApplicationErrorException(String message) {
    super(ErrorCode.APPLICATION_ERROR, message);
  }

  public ApplicationErrorException(String message, Throwable cause) {
    super(ErrorCode.APPLICATION_ERROR, message, cause);
  }

}
