package io.sluice.transport.grpc.internal.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.sluice.rpc.Status;
import io.sluice.transport.http2.internal.H2Handler;
import java.util.concurrent.CompletableFuture;

/**
 * One HTTP/2 connection of a gRPC client: what its {@link ClientCall}s share (the handler, the
 * request's scheme and authority, the inbound message limit), whether new calls may start, and
 * the connection's end. A graceful {@link #close} sends GOAWAY, refuses new calls and closes the
 * socket once the live calls have ended; {@link #dispose} closes it at once (live calls fail with
 * UNAVAILABLE).
 *
 * <p><b>Threads.</b> {@link #isOpen}, {@link #close}, {@link #dispose} and {@link #onClose} from
 * any thread; everything else on the connection's event loop. Holds no buffers.
 */
public final class ClientConnection implements H2Handler.ConnectionListener {
  private final Channel channel;
  private final H2Handler h2;
  private final AsciiString scheme;
  private final AsciiString authority;
  private final int maxInboundMessageSize;
  private final String peer;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private volatile boolean open = true;
  private final CallStarts starts;
  private final Runnable flush;
  private boolean closing; // event loop
  private int live; // event loop: calls with an HTTP/2 stream not yet closed
  private boolean flushScheduled; // event loop

  /**
   * @param h2 the connection's handler, in the pipeline of an active channel
   * @param peer the server as error messages name it, for example {@code "the gRPC server at
   *     host:port"}
   */
  public ClientConnection(
      H2Handler h2, AsciiString scheme, AsciiString authority, int maxInboundMessageSize, String peer) {
    this.h2 = h2;
    this.channel = h2.ctx().channel();
    this.scheme = scheme;
    this.authority = authority;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.peer = peer;
    this.starts = new CallStarts(scheme, authority);
    this.flush =
        () -> {
          flushScheduled = false;
          h2.flushNow();
        };
    h2.addListener(this);
    if (!channel.isActive()) {
      onChannelClosed();
    }
  }

  public EventLoop loop() {
    return channel.eventLoop();
  }

  public Channel channel() {
    return channel;
  }

  H2Handler h2() {
    return h2;
  }

  /** The metadata and request HEADERS of a call's first message (see {@link CallStarts}). */
  CallStarts.Start callStart(ByteBuf metadata) {
    return starts.of(metadata);
  }

  /**
   * Flushes once the event loop has run the tasks queued now: calls started from other threads
   * in the same turn go out in one write to the socket.
   */
  void flushSoon() {
    if (!flushScheduled) {
      flushScheduled = true;
      channel.eventLoop().execute(flush);
    }
  }

  int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  /** True until the connection closes, starts closing, or the server sent GOAWAY. */
  public boolean isOpen() {
    return open;
  }

  public CompletableFuture<Void> onClose() {
    return closed;
  }

  /** Why a new call cannot start now, or null when it can. */
  String refusal() {
    Http2Connection c = h2.connection();
    if (!channel.isActive()) {
      return "the connection to " + peer + " is closed";
    }
    if (closing) {
      return "the connection to " + peer + " is closing; no new calls";
    }
    if (c.goAwayReceived()) {
      return peer + " is going away (HTTP/2 GOAWAY received); no new calls on this connection";
    }
    if (!c.local().canOpenStream()) {
      return peer + " allows " + c.local().maxActiveStreams() + " concurrent calls, all in use";
    }
    return null;
  }

  void streamOpened() {
    live++;
  }

  void streamClosed() {
    live--;
    if (closing && live == 0) {
      channel.close();
    }
  }

  /** The status of a call whose stream closed without trailers or a reset. */
  Status closedStatus(Http2Stream stream) {
    Http2Connection c = h2.connection();
    if (c.goAwayReceived() && stream.id() > c.local().lastStreamKnownByPeer()) {
      return Status.of(
          Status.Code.UNAVAILABLE,
          peer + " went away (HTTP/2 GOAWAY) before processing the call; it is safe to retry");
    }
    if (!channel.isActive()) {
      return Status.of(Status.Code.UNAVAILABLE, "the connection to " + peer + " closed during the call");
    }
    return Status.of(Status.Code.INTERNAL, "the HTTP/2 stream closed without gRPC trailers");
  }

  /** Graceful close: GOAWAY, no new calls, the socket closes once the live calls have ended. */
  public void close() {
    open = false;
    run(
        () -> {
          if (closing || !channel.isActive()) {
            return;
          }
          closing = true;
          if (live == 0) {
            channel.close();
          } else {
            h2.goAway(Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
          }
        });
  }

  /** Closes at once: live calls fail with UNAVAILABLE. */
  public void dispose() {
    open = false;
    channel.close();
  }

  private void run(Runnable r) {
    if (channel.eventLoop().inEventLoop()) {
      r.run();
    } else {
      channel.eventLoop().execute(r);
    }
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
    open = false;
  }

  @Override
  public void onChannelClosed() {
    open = false;
    closed.complete(null);
  }

  @Override
  public String toString() {
    return "gRPC connection to " + peer;
  }
}
