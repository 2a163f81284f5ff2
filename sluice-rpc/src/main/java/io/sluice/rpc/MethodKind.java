package io.sluice.rpc;

/**
 * The shape of an RPC method, and the RSocket interaction each one uses.
 *
 * <p>Immutable constants: usable from any thread. Holds no buffers.
 */
public enum MethodKind {
  /** One request, one response: request-response. */
  UNARY(false, false),
  /** One request, a stream of responses: request-stream. */
  SERVER_STREAMING(false, true),
  /** A stream of requests, one response: request-channel. */
  CLIENT_STREAMING(true, false),
  /** Streams both ways: request-channel. */
  BIDI_STREAMING(true, true),
  /** One request, no response and no status: fire-and-forget. */
  FIRE_AND_FORGET(false, false);

  private final boolean clientStreams;
  private final boolean serverStreams;

  MethodKind(boolean clientStreams, boolean serverStreams) {
    this.clientStreams = clientStreams;
    this.serverStreams = serverStreams;
  }

  /** True when the client sends a stream of requests. */
  public boolean clientStreams() {
    return clientStreams;
  }

  /** True when the server sends a stream of responses. */
  public boolean serverStreams() {
    return serverStreams;
  }
}
