package io.sluice.transport.http2;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;
import io.sluice.transport.http2.internal.ServerStreams;
import java.util.function.Consumer;

/**
 * Requests of another protocol that a server serves on its HTTP connections beside RSocket, such as
 * gRPC, gRPC-Web and HTTP/JSON ({@code GrpcServices.httpRoutes()} in sluice-transport-grpc). The
 * protocol's module makes it; a server of several protocols ({@code
 * MultiProtocolServerTransport.withHttpRoutes}) plugs it into its HTTP/2 connections, where it is
 * asked first for each request stream (by path and content type), and hands it the HTTP/1.1
 * connections whose first request it serves. The connection itself (TLS and ALPN, SETTINGS,
 * resets, flushing, shutdown) stays the server's.
 *
 * <p>Application code composes these; it does not implement them: the methods speak netty and this
 * module's internal stream routing, which may change between releases. Implementations are
 * immutable and shared by the server's connections; every method runs on a connection's event
 * loop.
 */
public interface HttpRoutes {
  /** A short name for the server's description ("grpc"). */
  String name();

  /** The route of HTTP/2 request streams, asked first for each well-formed request. */
  ServerStreams.Route http2();

  /** True when an HTTP/1.1 connection whose first request has this head is served by these routes. */
  boolean servesHttp1(HttpRequest first);

  /**
   * Serves an HTTP/1.1 connection whose request decoder is already in the pipeline, starting with
   * {@code first} (owned), handed on through {@code from}, the handler that chose, for as long as
   * its requests are ones these routes serve ({@link #servesHttp1}). The first later request that
   * is not (on a kept-alive connection, a WebSocket upgrade, say) goes back to the server: these
   * routes take their handlers out, call {@code others} with the context to add the server's own
   * behind (the decoder stays), and pass that request and what followed it on through it.
   */
  void takeOverHttp1(ChannelHandlerContext from, HttpRequest first, Consumer<ChannelHandlerContext> others);

  /**
   * Called once when the server binds, with how many connections it holds now (any thread), for
   * routes that show figures (gRPC's console). Does nothing by default.
   */
  default void countConnections(java.util.function.IntSupplier connections) {}
}
