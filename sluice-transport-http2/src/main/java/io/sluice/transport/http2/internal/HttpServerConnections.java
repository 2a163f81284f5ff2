package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The open connections of a bound server that serves HTTP requests itself (gRPC, gRPC-Web,
 * HTTP/JSON, on their own port or on the one port), so that stopping the server stops them too:
 * an HTTP/2 connection is sent GOAWAY (its client opens no more streams there and may retry
 * elsewhere) and closed once its open streams have ended, or when the grace is over; an HTTP/1.1
 * one is closed once the response under way is over ({@code Connection: close}), or when the
 * grace is over; one whose protocol is not known yet is closed at once. Connections the server
 * handed to the RSocket engine (RSocket over TCP or WebSocket) are the engine's to drain and are
 * left alone.
 *
 * <p>This is the one shutdown of every HTTP server here (the gRPC server, the one-port server, and
 * through them gRPC, gRPC-Web, HTTP/JSON; the RSocket stream mapping and WebSocket over HTTP/2
 * reach the same GOAWAY through their engine's drain): GOAWAY first, the streams in flight finish
 * within the grace, then the close.
 *
 * <p><b>Threads.</b> Thread-safe; each connection is stopped on its own event loop.
 */
public final class HttpServerConnections {
  /**
   * The handler of an HTTP/1.1 connection that serves requests itself (gRPC-Web, HTTP/JSON): on
   * stop, it closes the connection once the response under way is over.
   */
  public interface Http1Connection extends ChannelHandler {
    /** Closes the connection once the response under way is over (at once when none is). */
    void closeAfterResponse();

    /** True until the head of the connection's first request has come. */
    boolean awaitingFirstRequest();
  }

  private final Set<Channel> open = ConcurrentHashMap.newKeySet();
  private final Predicate<Channel> undecided;
  private volatile long stoppingGraceMillis = -1;

  /**
   * @param undecided true for a connection whose protocol is not known yet (closed at once when
   *     the server stops); a connection that is neither that, HTTP/2 nor HTTP/1.1 gRPC-Web is the
   *     engine's
   */
  public HttpServerConnections(Predicate<Channel> undecided) {
    this.undecided = undecided;
  }

  /**
   * Tracks {@code ch} until it closes; on its event loop, at accept. A connection accepted while
   * the server is stopping is stopped at once.
   */
  public void add(Channel ch) {
    open.add(ch);
    ch.closeFuture().addListener(f -> open.remove(ch));
    long grace = stoppingGraceMillis;
    if (grace >= 0) {
      ch.close();
    }
  }

  /** Connections open now (a racy read, for figures). */
  public int size() {
    return open.size();
  }

  /**
   * Tells the client of every HTTP/2 connection to open no more streams (GOAWAY, with the last
   * stream it opened); the streams open go on.
   */
  public void goAway() {
    for (Channel ch : open) {
      ch.eventLoop().execute(() -> {
        H2Handler h = ch.pipeline().get(H2Handler.class);
        if (h != null && ch.isActive() && !h.connection().goAwaySent()) {
          h.goAway(Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
        }
      });
    }
  }

  /**
   * Stops every connection as the class says, cutting what is left after {@code grace}.
   *
   * @return completes once every connection stopped has closed (the engine's are not waited for)
   */
  public CompletableFuture<Void> stop(Duration grace) {
    long millis = grace.toMillis();
    stoppingGraceMillis = millis;
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (Channel ch : open) {
      CompletableFuture<Void> closed = new CompletableFuture<>();
      closing.add(closed);
      ch.eventLoop().execute(() -> stop(ch, millis, closed));
    }
    return CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0]));
  }

  private void stop(Channel ch, long graceMillis, CompletableFuture<Void> closed) {
    ChannelFuture closeFuture = ch.closeFuture();
    H2Handler h2 = ch.pipeline().get(H2Handler.class);
    Http1Connection h1 = http1(ch);
    if (h2 != null) {
      // netty's graceful close: GOAWAY, then the close once no stream is open, at most the grace.
      h2.gracefulShutdownTimeoutMillis(graceMillis);
      ch.close();
    } else if (h1 != null) {
      h1.closeAfterResponse();
      if (ch.isOpen()) {
        ch.eventLoop().schedule(() -> ch.close(), graceMillis, TimeUnit.MILLISECONDS);
      }
    } else if (undecided.test(ch)) {
      ch.close();
    } else {
      closed.complete(null); // the engine's
      return;
    }
    closeFuture.addListener(f -> closed.complete(null));
  }

  /** The HTTP/1.1 handler of {@code ch}, or null. */
  static Http1Connection http1(Channel ch) {
    for (var e : ch.pipeline()) {
      if (e.getValue() instanceof Http1Connection h) {
        return h;
      }
    }
    return null;
  }
}
