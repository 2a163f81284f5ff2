package io.sluice;

import io.sluice.exceptions.ApplicationErrorException;

/**
 * Handles the requests a peer starts. Implemented by API flavors (and by applications that want the
 * raw contract). Every method is called on the connection's event loop and must not block; hand
 * slow work to another thread and answer through the {@link StreamHandle}, which is thread-safe.
 *
 * <p>Each request method receives the request message (the responder owns it) and the stream's
 * handle, and returns the listener that receives the stream's later signals: the peer's demand for
 * responses ({@link StreamListener#onRequest(long)}), its cancel, and for channels its further
 * messages. The peer's initial demand is delivered right after the method returns.
 */
public interface Responder {

  /** A fire-and-forget request. */
  default void fireAndForget(Message request) {
    request.release();
  }

  /** A connection-level metadata push: {@link Message#metadata()} carries it. */
  default void metadataPush(Message metadata) {
    metadata.release();
  }

  /** A request-response: answer with {@link StreamHandle#nextAndComplete} or an error. */
  default StreamListener requestResponse(Message request, StreamHandle response) {
    request.release();
    response.error(new ApplicationErrorException("request-response is not implemented"));
    return NoopListener.INSTANCE;
  }

  /** A request-stream: send up to the demand signalled to the returned listener. */
  default StreamListener requestStream(Message request, StreamHandle stream) {
    request.release();
    stream.error(new ApplicationErrorException("request-stream is not implemented"));
    return NoopListener.INSTANCE;
  }

  /**
   * A request-channel. {@code first} is the requester's first message; {@code inboundComplete} is
   * true when the requester will send nothing more. Further inbound messages go to the returned
   * listener as {@link StreamHandle#request(long) requested}.
   */
  default StreamListener requestChannel(
      Message first, boolean inboundComplete, StreamHandle channel) {
    first.release();
    channel.error(new ApplicationErrorException("request-channel is not implemented"));
    return NoopListener.INSTANCE;
  }

  /** The connection closed; {@code cause} is null on a clean close. */
  default void onClose(Throwable cause) {}
}
