package io.sluice.rpc;

import com.google.protobuf.MessageLite;

/**
 * The server's end of one call, as a transport hands it to a method's {@link ServerCallHandler}:
 * transport- and flavor-neutral (the RSocket dispatcher implements it, and so does the gRPC server
 * of sluice-transport-grpc). A stream of requests comes in as {@link #request(long) requested}, a stream of
 * responses goes out as the {@link Listener#onReady(long) peer allows}, and a {@link Status} ends
 * the call.
 *
 * <p><b>Threads.</b> Every method may be called from any thread. {@link Listener} callbacks come on
 * the connection's event loop, one at a time, and must not block.
 *
 * <p>In the RSocket binding a fire-and-forget call has no stream: its one request is delivered on
 * the thread that calls {@link #request}, which the flavors do from {@code startCall}, on the event
 * loop.
 *
 * <p><b>Buffers.</b> None cross this interface: requests arrive parsed, and the implementation
 * releases their bytes once parsed (or when the call ends first). {@link #sendMessage} encodes each
 * response into a new buffer that the implementation passes to the transport (a unary response is
 * held until the call closes) or releases.
 *
 * @param <Req> request message type
 * @param <Resp> response message type
 */
public interface ServerCall<Req extends MessageLite, Resp extends MessageLite> {

  /** What the caller sent before its first message: service, method, headers, deadline, ... */
  CallMetadata metadata();

  /** The method being called. */
  MethodDescriptor<Req, Resp> method();

  /** Asks for {@code n} more request messages ({@link Listener#onMessage}). */
  void request(long n);

  /**
   * Sends one response. Only within the demand signalled by {@link Listener#onReady(long)}; for a
   * unary or client-streaming method, at most one. Ignored after the call ended.
   */
  void sendMessage(Resp message);

  /** Ends the call with {@code status}: OK completes it, anything else fails it. Idempotent. */
  void close(Status status);

  /**
   * Sends response headers ahead of the first response (gRPC's initial metadata). At most once,
   * before the first {@link #sendMessage}; later calls are ignored. Over gRPC they are response
   * HEADERS; over RSocket they go with the first response (or the call's end) to a caller that
   * asked for response metadata, and are dropped for others (docs/rpc-wire-format.md). The default
   * ignores them.
   */
  default void sendHeaders(Headers headers) {}

  /**
   * Ends the call with {@code status} and {@code trailers} (gRPC's trailing metadata, where a
   * binary {@code grpc-status-details-bin} carries rich error details). Over RSocket the trailers
   * reach a caller that asked for response metadata and are dropped for others. The default is
   * {@link #close(Status)}. Idempotent.
   */
  default void close(Status status, Headers trailers) {
    close(status);
  }

  /** True once the call has ended (closed, cancelled, or past its deadline). */
  boolean isClosed();

  /** Receives a call's inbound signals. */
  interface Listener<Req> {
    /** One request message, within the requested count. */
    void onMessage(Req message);

    /** The caller sends no more requests. */
    void onHalfClose();

    /**
     * The call ended without the handler closing it: the caller cancelled, the connection
     * dropped, or the deadline passed. Stop working on it; sends are now ignored.
     */
    void onCancel();

    /** The caller allows {@code n} more responses (sums saturate at {@link Long#MAX_VALUE}). */
    void onReady(long n);
  }
}
