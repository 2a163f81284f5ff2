package io.sluice.exceptions;

import io.sluice.ErrorCode;

/**
 * REJECTED (0x202): the request was not processed (no lease, too many streams, the connection is
 * draining) and is safe to retry elsewhere.
 *
 * <p>Only the engine's own refusals, made before any handler saw the request, go on the wire as
 * REJECTED: a handler that fails with a RejectedException (for example passing on a refusal it got
 * from a server it called) may have done its work already, so its peer gets APPLICATION_ERROR
 * with the same message.
 */
public final class RejectedException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public RejectedException(String message) {
    super(ErrorCode.REJECTED, message);
  }

  private RejectedException(String message, boolean stackless, boolean requestNotSent) {
    super(ErrorCode.REJECTED, message, stackless, requestNotSent);
  }

  /** A rejection without a stack trace, for paths a peer can trigger at will. */
  public static RejectedException stackless(String message) {
    return new RejectedException(message, true, false);
  }

  /**
   * A requester's refusal of a request before any of it was sent (no lease from the peer, too many
   * live requests), without a stack trace: {@link #requestNotSent()} is true.
   */
  public static RejectedException notSent(String message) {
    return new RejectedException(message, true, true);
  }
}
