package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** CANCELED (0x203): the responder canceled the request, which may have been partly processed. */
public final class CanceledException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public CanceledException(String message) {
    super(ErrorCode.CANCELED, message);
  }

  public CanceledException(String message, Throwable cause) {
    super(ErrorCode.CANCELED, message, cause);
  }

}
