package io.sluice.exceptions;

import io.sluice.ErrorCode;

/**
 * An RSocket error: the code of the ERROR frame and its message. Each protocol code has its own
 * final subclass; {@link #from(int, String)} maps a received code to the matching exception.
 *
 * <p><b>Threads and buffers.</b> Immutable (as are its subclasses) and safe to pass between
 * threads. It holds no buffer: the ERROR frame's data has been decoded into the message, and the
 * frame released, by the time an exception exists.
 */
public abstract class SluiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int errorCode;

  protected SluiceException(int errorCode, String message) {
    super(message);
    this.errorCode = errorCode;
  }

  protected SluiceException(int errorCode, String message, Throwable cause) {
    super(message, cause);
    this.errorCode = errorCode;
  }

  /**
   * For exceptions on rejection paths that a hostile peer can trigger at will: no stack trace, so
   * rejecting stays cheap.
   */
  protected SluiceException(int errorCode, String message, boolean stackless) {
    super(message, null, false, !stackless);
    this.errorCode = errorCode;
  }

  /** The RSocket error code carried on the wire. */
  public int errorCode() {
    return errorCode;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + " ["
        + ErrorCode.name(errorCode)
        + "]: "
        + getMessage();
  }

  /** The exception for a received ERROR frame. */
  public static SluiceException from(int code, String message) {
    switch (code) {
      case ErrorCode.INVALID_SETUP:
        return new InvalidSetupException(message);
      case ErrorCode.UNSUPPORTED_SETUP:
        return new UnsupportedSetupException(message);
      case ErrorCode.REJECTED_SETUP:
        return new RejectedSetupException(message);
      case ErrorCode.REJECTED_RESUME:
        return new RejectedResumeException(message);
      case ErrorCode.CONNECTION_ERROR:
        return new ConnectionErrorException(message);
      case ErrorCode.CONNECTION_CLOSE:
        return new ConnectionCloseException(message);
      case ErrorCode.APPLICATION_ERROR:
        return new ApplicationErrorException(message);
      case ErrorCode.REJECTED:
        return new RejectedException(message);
      case ErrorCode.CANCELED:
        return new CanceledException(message);
      case ErrorCode.INVALID:
        return new InvalidException(message);
      default:
        return CustomErrorException.received(code, message);
    }
  }
}
