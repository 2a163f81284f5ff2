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
  private final boolean requestNotSent;

  protected SluiceException(int errorCode, String message) {
    super(message);
    this.errorCode = errorCode;
    this.requestNotSent = false;
  }

  protected SluiceException(int errorCode, String message, Throwable cause) {
    super(message, cause);
    this.errorCode = errorCode;
    this.requestNotSent = false;
  }

  /**
   * For exceptions on rejection paths that a hostile peer can trigger at will: no stack trace, so
   * rejecting stays cheap.
   */
  protected SluiceException(int errorCode, String message, boolean stackless) {
    this(errorCode, message, stackless, false);
  }

  /**
   * As {@link #SluiceException(int, String, boolean)}; {@code requestNotSent} for a requester's
   * refusal of a request before any of it was sent (see {@link #requestNotSent()}).
   */
  protected SluiceException(
      int errorCode, String message, boolean stackless, boolean requestNotSent) {
    super(message, null, false, !stackless);
    this.errorCode = errorCode;
    this.requestNotSent = requestNotSent;
  }

  /** The RSocket error code carried on the wire. */
  public int errorCode() {
    return errorCode;
  }

  /**
   * True if this side refused the request before any of it was sent (the connection was closing
   * or closed, no lease from the peer, too many live requests): the peer never saw it, so sending
   * it again, on another connection, cannot make it run twice. False for every error the peer
   * sent (a REJECTED included: see {@link RejectedException}) and for every failure after the
   * request left, which may have been processed. A load balancer retries a request that is not
   * idempotent only on this word.
   */
  public boolean requestNotSent() {
    return requestNotSent;
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
