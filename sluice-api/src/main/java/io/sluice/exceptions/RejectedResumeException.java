package io.sluice.exceptions;

import io.sluice.ErrorCode;

/** REJECTED_RESUME (0x004): the server cannot resume this session. */
public final class RejectedResumeException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public RejectedResumeException(String message) {
    super(ErrorCode.REJECTED_RESUME, message);
  }

  public RejectedResumeException(String message, Throwable cause) {
    super(ErrorCode.REJECTED_RESUME, message, cause);
  }

}
