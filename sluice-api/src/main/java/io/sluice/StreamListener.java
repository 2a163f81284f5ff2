package io.sluice;

/**
 * What the protocol core tells an API flavor about one stream. All methods are called on the
 * connection's event loop, never concurrently, and must not block.
 *
 * <p>Terminal signals: after {@link #onError(Throwable)} or {@link #onCancel()}, or once both
 * {@link #onComplete()} and the local outbound completion have happened, nothing more is called.
 *
 * <p><b>Ownership.</b> A message passed to {@link #onNext(Message)} belongs to the listener, which
 * must release it.
 */
public interface StreamListener {

  /**
   * The listener of a stream that expects nothing more from the peer (a request-response answered
   * at once, a call refused before it started): releases any message that still arrives and
   * ignores every other signal.
   */
  StreamListener DISCARDING =
      new StreamListener() {
        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };

  /** One inbound message. Never called beyond the credit granted with {@link StreamHandle#request}. */
  void onNext(Message message);

  /** The peer completed its outbound half (our inbound). */
  void onComplete();

  /** The stream failed: an ERROR from the peer, a protocol violation, or the connection closed. */
  void onError(Throwable cause);

  /**
   * The peer (and the local outbound room) allow {@code n} more outbound messages. Sums saturate
   * at {@link Long#MAX_VALUE}.
   */
  default void onRequest(long n) {}

  /** The peer canceled: stop producing; messages sent now are released unsent. */
  default void onCancel() {}
}
