package io.sluice.transport.websocket;

/**
 * The peer broke the WebSocket protocol (RFC 6455) or one of the transport's limits; the
 * connection is closed with {@link #closeCode()}.
 *
 * <p><b>Threads and buffers.</b> Immutable; holds no buffer.
 */
public final class WebSocketProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** RFC 6455 close code: protocol error. */
  public static final int PROTOCOL_ERROR = 1002;
  /** RFC 6455 close code: a data type the endpoint cannot accept (a text message here). */
  public static final int UNSUPPORTED_DATA = 1003;
  /** RFC 6455 close code: data that does not match the message's type (a close reason not UTF-8). */
  public static final int INVALID_DATA = 1007;
  /** RFC 6455 close code: a message that violates the endpoint's policy. */
  public static final int POLICY_VIOLATION = 1008;
  /** RFC 6455 close code: a message too big to process. */
  public static final int MESSAGE_TOO_BIG = 1009;

  private final int closeCode;

  public WebSocketProtocolException(int closeCode, String message) {
    super(message, null, false, false);
    this.closeCode = closeCode;
  }

  /** The close code sent to the peer. */
  public int closeCode() {
    return closeCode;
  }
}
