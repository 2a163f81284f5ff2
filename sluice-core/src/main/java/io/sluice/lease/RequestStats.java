package io.sluice.lease;

/**
 * Per-request measurements of the requests a peer starts on this side (the responder's view): one
 * call when a request reaches the responder, one at its first response, one at its end. Called on
 * the connections' event loops, from many loops at once: implementations are thread-safe and must
 * not block. Set with {@link io.sluice.core.ConnectionOptions.Builder#requestStats(RequestStats)};
 * a {@link LeasePolicy} may bring its own ({@link LeasePolicy#requestStats()}).
 *
 * <p>Calls in flight are {@code started - ended}. Latencies are in nanoseconds from the request's
 * arrival.
 */
public interface RequestStats {

  /** The four interactions. Metadata pushes are not requests and are not reported. */
  enum Kind {
    FIRE_AND_FORGET,
    REQUEST_RESPONSE,
    REQUEST_STREAM,
    REQUEST_CHANNEL
  }

  /** How a request ended. */
  enum Outcome {
    /** Both halves completed (for a fire-and-forget: handed to the responder). */
    COMPLETE,
    /** An ERROR either way (from the responder, or the peer's, or a protocol violation). */
    ERROR,
    /** The peer canceled. */
    CANCELED,
    /** The connection closed first. */
    CONNECTION_CLOSED
  }

  /** A request reached the responder. */
  void onStart(Kind kind);

  /**
   * The responder's first message on a request-response, request-stream or request-channel (not
   * called for one that ends with no message).
   */
  default void onFirstResponse(Kind kind, long latencyNanos) {}

  /**
   * A request-response, request-stream or request-channel ends without having had a first response
   * (its handler failed, the peer canceled, the connection closed, or it completed with no
   * message); called just before its {@link #onEnd}. With {@link #onStart} and {@link
   * #onFirstResponse} it tells how many calls still wait for their first answer, which a policy
   * can tell apart from calls that are answering (a hung handler from a live stream).
   */
  default void onEndUnanswered(Kind kind) {}

  /** The request ended. Paired with exactly one {@link #onStart}. */
  void onEnd(Kind kind, long latencyNanos, Outcome outcome);

  /** A request refused before the responder saw it: beyond the lease, by rank, or over a limit. */
  default void onRejected(Kind kind) {}
}
