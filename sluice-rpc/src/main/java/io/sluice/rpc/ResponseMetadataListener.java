package io.sluice.rpc;

/**
 * Receives a call's response headers (gRPC's initial metadata) and trailers, on the client, set
 * with {@link CallOptions#withResponseMetadata}. Works the same over RSocket and over gRPC. Binary
 * {@code -bin} values arrive as {@link Headers} holds them (base64 text, decoded by {@link
 * Headers#getBinary}).
 *
 * <ul>
 *   <li>{@link #onHeaders} at most once, before the first response message reaches the caller (or
 *       before the call's end, when the server sent headers but no message). A server that sends
 *       none gives {@link Headers#EMPTY} with the first message.
 *   <li>{@link #onTrailers} once, when the call ends with a status (OK or an error, also one the
 *       transport reports, such as a lost connection), before the caller sees that end; {@link
 *       Headers#EMPTY} when the server sent none (also from servers that predate response
 *       metadata). Not called when the caller cancels the call or its client-side deadline passes
 *       first.
 * </ul>
 *
 * <p><b>Threads.</b> Called on the connection's event loop, one call at a time per call; must not
 * block. An exception thrown here is ignored. Holds no buffers.
 */
public interface ResponseMetadataListener {
  /** The response headers. */
  void onHeaders(Headers headers);

  /** The trailers. */
  void onTrailers(Headers trailers);
}
