package io.sluice.exceptions;

import io.sluice.ErrorCode;

/**
 * REJECTED (0x202): the request was not processed (no lease, too many streams, the connection is
 * draining) and is safe to retry elsewhere.
 *
 * <p>By default only the engine's own refusals, made before any handler saw the request, go on the
 * wire as REJECTED: a handler that fails with a RejectedException (for example passing on a refusal
 * it got from a server it called) may have done its work already, so its peer gets
 * APPLICATION_ERROR with the same message. A handler that refuses before doing anything (its own
 * load shedding) and wants its callers to retry elsewhere says so with {@link
 * #unprocessed(String)}: that one goes out as REJECTED.
 */
public final class RejectedException extends SluiceException {
  private static final long serialVersionUID = 1L;

  public RejectedException(String message) {
    super(ErrorCode.REJECTED, message);
    this.unprocessed = false;
  }

  private final boolean unprocessed;

  private RejectedException(
      String message, boolean stackless, boolean requestNotSent, boolean unprocessed) {
    super(ErrorCode.REJECTED, message, stackless, requestNotSent);
    this.unprocessed = unprocessed;
  }

  /** A rejection without a stack trace, for paths a peer can trigger at will. */
  public static RejectedException stackless(String message) {
    return new RejectedException(message, true, false, false);
  }

  /**
   * A handler's promise that it did not process the request (it refused before doing any work, say
   * to shed load): sent as REJECTED, so a caller may retry it on another server, even a call that
   * is not idempotent. Without a stack trace. Only a handler that keeps the promise may use it.
   */
  public static RejectedException unprocessed(String message) {
    return new RejectedException(message, true, false, true);
  }

  /** Whether a handler promised with {@link #unprocessed(String)} that it did no work. */
  public boolean isUnprocessed() {
    return unprocessed;
  }

  /**
   * A requester's refusal of a request before any of it was sent (no lease from the peer, too many
   * live requests), without a stack trace: {@link #requestNotSent()} is true.
   */
  public static RejectedException notSent(String message) {
    return new RejectedException(message, true, true, false);
  }
}
