package io.sluice.transport.grpc;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.internal.client.ClientCall;
import io.sluice.transport.grpc.internal.client.ClientConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One HTTP/2 connection to a gRPC server, as a {@link Requester}: Sluice's generated RPC clients of
 * every flavor take it as they take an RSocket connection (wrap it in a {@code ReactorRequester}
 * where a flavor asks for one) and then call the gRPC server. Made by {@link
 * GrpcClientTransport#connect()}.
 *
 * <p>Each call is an HTTP/2 stream speaking gRPC: the RPC call metadata of its first message (service,
 * method, headers, deadline) becomes the request HEADERS ({@code grpc-timeout}, metadata with
 * {@code -bin} values in base64), messages carry gRPC's 5-byte prefix, the inbound HTTP/2 window
 * opens only as the caller takes messages (request-n), requests are sent as the server's window
 * takes them, responses may come gzip-compressed, and the trailers' {@code grpc-status} and
 * percent-decoded {@code grpc-message} end the call: failures reach the caller as {@link
 * StatusException}s carrying gRPC's status, so the flavors report them as they report RSocket
 * ones. Cancelling a call sends RST_STREAM CANCEL.
 *
 * <p>Unary calls map to {@link #requestResponse}, server streaming to {@link #requestStream},
 * client and bidi streaming to {@link #requestChannel}. A fire-and-forget is a unary call whose
 * response is dropped. {@link #metadataPush} has no gRPC counterpart and fails with
 * UNIMPLEMENTED. Calls beyond the server's concurrent stream limit, and calls after the server's
 * GOAWAY or after the connection closed, fail with UNAVAILABLE (open a new channel; there is no
 * queueing and no reconnection).
 *
 * <p><b>Threads.</b> Thread-safe. Listener signals arrive on the connection's event loop ({@link
 * #executor()}) and must not block.
 *
 * <p><b>Buffers.</b> Every method takes ownership of the message it is given, also when the call
 * fails. Messages passed to a listener's {@code onNext} belong to the listener.
 */
public final class GrpcChannel implements Requester {
  private final ClientConnection conn;

  GrpcChannel(ClientConnection conn) {
    this.conn = conn;
  }

  @Override
  public void fireAndForget(Message request, StreamListener listener) {
    ClientCall.start(conn, ClientCall.FIRE_AND_FORGET, request, true, 1, listener);
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    return ClientCall.start(conn, ClientCall.REQUEST_RESPONSE, request, true, 1, listener);
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    return ClientCall.start(conn, ClientCall.REQUEST_STREAM, request, true, initialRequest, listener);
  }

  @Override
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
    return ClientCall.start(conn, ClientCall.REQUEST_CHANNEL, first, complete, initialRequest, listener);
  }

  /** Not part of gRPC: releases the message and fails the listener with UNIMPLEMENTED. */
  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    metadata.release();
    conn.loop()
        .execute(
            () ->
                listener.onError(
                    new StatusException(
                        Status.of(Status.Code.UNIMPLEMENTED, "gRPC has no metadata push"))));
  }

  @Override
  public ByteBufAllocator alloc() {
    return conn.channel().alloc();
  }

  @Override
  public Executor executor() {
    return conn.loop();
  }

  /** True until the connection closes or starts closing, or the server sends GOAWAY. */
  @Override
  public boolean isOpen() {
    return conn.isOpen();
  }

  /** Graceful: new calls are refused, live calls finish, then the connection closes. */
  @Override
  public void close() {
    conn.close();
  }

  /** At once: live calls fail with UNAVAILABLE. */
  @Override
  public void dispose() {
    conn.dispose();
  }

  @Override
  public CompletableFuture<Void> onClose() {
    return conn.onClose();
  }

  @Override
  public String toString() {
    return conn.toString();
  }
}
