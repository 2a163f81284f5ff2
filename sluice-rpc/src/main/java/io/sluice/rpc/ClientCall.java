package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * The client's end of one call as {@link ClientInterceptor}s see it: grpc-java's {@code ClientCall}
 * shape, flavor- and transport-neutral. Every flavor's generated client (futures, reactor, rxjava,
 * mutiny, StreamObserver, blocking), over an RSocket connection or a gRPC channel alike, drives a
 * call through this interface when its requester was made by {@link ClientInterceptors#intercept};
 * without interceptors the flavors take their own faster path and no {@code ClientCall} exists.
 *
 * <p>The sequence: {@link #start} once with the listener and the call's request headers, then
 * {@link #request} for responses, {@link #sendMessage} for each request (exactly one for unary,
 * server-streaming and fire-and-forget methods), {@link #halfClose} after the last request, and
 * {@link #cancel} to give up. The listener then sees {@link Listener#onHeaders} (when response
 * metadata was asked for, see {@link Listener}), each response in {@link Listener#onMessage}, and
 * exactly one {@link Listener#onClose}.
 *
 * <p><b>Threads.</b> Methods may be called from any thread, one at a time. Listener callbacks come
 * one at a time, normally on the connection's event loop (a client-side deadline: on a timer
 * thread; a {@link #cancel}: on the cancelling thread), and must not block. <b>Buffers.</b> None:
 * requests and responses are parsed protobuf messages; the transport owns their bytes.
 *
 * @param <Req> request message type
 * @param <Resp> response message type
 */
public abstract class ClientCall<Req extends MessageLite, Resp extends MessageLite> {

  /**
   * Starts the call. {@code headers} are the call's request headers: the flavors pass the {@link
   * CallOptions#headers()} of the call, and an interceptor adds to them by passing a larger set on
   * ({@code super.start(listener, headers.toBuilder().add("authorization", token).build())}).
   */
  public abstract void start(Listener<Resp> listener, Headers headers);

  /** Asks for {@code n} more responses ({@code n > 0}; sums saturate at {@link Long#MAX_VALUE}). */
  public abstract void request(long n);

  /**
   * Cancels the call: the stream is cancelled (the server's handler sees a cancel) and the listener
   * gets {@link Listener#onClose} with {@link Status.Code#CANCELLED} unless the call ended before.
   *
   * @param message why, for the CANCELLED status's description (may be null)
   * @param cause the cause, or null
   */
  public abstract void cancel(String message, Throwable cause);

  /** No more requests follow. */
  public abstract void halfClose();

  /** Sends one request. */
  public abstract void sendMessage(Req message);

  /**
   * True while the transport takes more requests without queueing them (its peer asked for them):
   * a caller that streams requests sends while this holds and waits for {@link Listener#onReady}
   * otherwise. Requests sent when not ready are queued, not lost. The default: true.
   */
  public boolean isReady() {
    return true;
  }

  /**
   * Receives a call's signals. Every method has an empty default; {@link #onClose} comes exactly
   * once, last.
   *
   * <p>Response headers and trailers travel only for calls that ask for them: over RSocket the
   * server sends them only then, and over gRPC the client passes them on only then. A call asks
   * when the {@link CallOptions} that reach the transport carry a {@link
   * CallOptions#withResponseMetadata response metadata listener}: an interceptor that needs them
   * passes {@code options.withResponseMetadata(...)} to {@link ClientChannel#newCall} when the
   * options have none. Otherwise {@link #onHeaders} is not called and {@link #onClose} gets {@link
   * Headers#EMPTY}.
   *
   * @param <Resp> response message type
   */
  public abstract static class Listener<Resp> {
    /** The response headers, before the first response (only when asked for, see above). */
    public void onHeaders(Headers headers) {}

    /** One response. */
    public void onMessage(Resp message) {}

    /**
     * The call ended: {@link Status#OK} when the server completed it, its error otherwise ({@link
     * Status.Code#CANCELLED} for {@link ClientCall#cancel}, {@link Status.Code#DEADLINE_EXCEEDED}
     * when the client's deadline passed); the trailers, or {@link Headers#EMPTY}.
     */
    public void onClose(Status status, Headers trailers) {}

    /** The transport takes requests again ({@link ClientCall#isReady()} turned true). */
    public void onReady() {}
  }
}
