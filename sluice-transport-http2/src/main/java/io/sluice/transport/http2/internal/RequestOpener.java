package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;

/**
 * A mapping client's request streams: whether one may be opened now (no GOAWAY received, below
 * the server's limit of concurrent streams, stream ids left), opening it, and its HEADERS, whose
 * path the request's first frame picks. Runs on the channel's event loop.
 */
final class RequestOpener {
  private final H2Handler h2;
  private final StreamMapping.ClientRequest request;
  /** A client's request HEADERS for the plain paths, by request type. */
  private final Http2Headers[] plainHeaders = new Http2Headers[4];

  RequestOpener(H2Handler h2, StreamMapping.ClientRequest request) {
    this.h2 = h2;
    this.request = request;
  }

  /** Why no stream can be opened now, or null when one can. */
  String refusal() {
    Http2Connection.Endpoint<?> local = h2.connection().local();
    if (h2.connection().goAwayReceived()) {
      return "the server is going away (HTTP/2 GOAWAY received)";
    }
    if (!local.canOpenStream()) {
      return "the server's HTTP/2 limit of concurrent streams (" + local.maxActiveStreams() + ") is reached";
    }
    if (nextId() <= 0) {
      return "this HTTP/2 connection has used all its stream ids; open a new connection";
    }
    return null;
  }

  private int nextId() {
    int last = h2.connection().local().lastStreamCreated();
    return last == 0 ? 1 : last + 2; // a client's ids are odd
  }

  /**
   * Opens a new stream (after a null {@link #refusal}) without writing anything: the caller writes
   * its HEADERS, {@link #headers}, before anything else is written on the connection. The stream,
   * or null when netty refuses it.
   */
  Http2Stream open() {
    try {
      return h2.connection().local().createStream(nextId(), false);
    } catch (Http2Exception e) {
      return null;
    }
  }

  /** The HEADERS of the request whose first frame is {@code frame}: its path the frame's pick. */
  Http2Headers headers(int type, int flags, ByteBuf frame) {
    ByteBuf metadata = (flags & Frames.FLAG_METADATA) != 0 ? Frames.metadata(frame) : null;
    return requestHeaders(type, request.paths().path(type, metadata));
  }

  /**
   * The request HEADERS: for the four plain paths, made once per connection and shared (a new
   * stream's HEADERS are encoded at once, never queued, and nothing changes them).
   */
  private Http2Headers requestHeaders(int type, CharSequence path) {
    int i = type - FrameType.REQUEST_RESPONSE; // REQUEST_RESPONSE, FNF, STREAM, CHANNEL: 0..3
    if (i >= 0 && i < 4 && MappingWire.pathOf(type).contentEquals(path)) {
      Http2Headers h = plainHeaders[i];
      if (h == null) {
        h = plainHeaders[i] = request.headers(MappingWire.pathOf(type));
      }
      return h;
    }
    return request.headers(path);
  }
}
