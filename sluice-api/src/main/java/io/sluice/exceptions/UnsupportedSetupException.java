package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** UNSUPPORTED_SETUP (0x002): a SETUP parameter (version, MIME type, lease) is not supported. */
public final class UnsupportedSetupException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public UnsupportedSetupException(String message) {
    super(ErrorCode.UNSUPPORTED_SETUP, message);
  }

  public UnsupportedSetupException(String message, Throwable cause) {
    super(ErrorCode.UNSUPPORTED_SETUP, message, cause);
  }

}
