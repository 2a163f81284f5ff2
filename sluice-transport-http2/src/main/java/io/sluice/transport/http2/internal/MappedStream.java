package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * One RSocket stream carried by one HTTP/2 stream, as {@link StreamMapping} tracks it: which
 * directions are done, whether our half of the HTTP/2 stream has ended, the bytes of an inbound
 * frame cut across DATA frames, and the bytes not yet given back to flow control. It is also the
 * HTTP/2 stream's sink, so the handler's callbacks reach the mapping with the stream's state.
 */
final class MappedStream implements H2Handler.StreamSink {
  final StreamMapping mapping;
  /** The id the local engine knows the stream by (the HTTP/2 stream id on a server). */
  final int rsocketId;
  Http2Stream h2;
  /** The request frame type, or 0 before the request frame has passed. */
  int kind;
  /** Server: the request type its path names (0: any, RPC path). */
  int pathKind;
  /** Client: a request-stream whose initial demand is unbounded (2^31-1): it sends no REQUEST_N. */
  boolean unbounded;

  /** Server: {@code :status 200} sent, or due with the DATA being cut. Client: response headers received. */
  boolean headersDone;
  /**
   * Server: {@code :status 200} is due before the run of DATA being cut, and not written yet: with
   * the trailers after it, the whole answer may go in one go ({@link H2Answers#writeWhole}).
   */
  boolean headersPending;
  /**
   * Client: the request's HEADERS while they are due, not yet written: they go before the request
   * frame's first DATA, with it when they can ({@link H2Answers#writeRequest}); null once written.
   */
  Http2Headers requestHeaders;
  /** Our half of the HTTP/2 stream is over (END_STREAM or RST_STREAM sent). */
  boolean localEnded;
  /** A request whose last fragment has not passed yet (outbound on a client, inbound on a server). */
  boolean requestOpen;
  /** Our RSocket direction is over: we sent its COMPLETE or ERROR, or the peer cancelled it. */
  boolean outDone;
  /** The peer's RSocket direction is over (its COMPLETE or ERROR passed, or we cancelled it). */
  boolean inDone;
  /** A CANCEL or ERROR has reached the engine for this stream: nothing more is delivered. */
  boolean engineDone;

  /** Outbound: what follows the last byte of the frame being cut (see {@link StreamRules}). */
  int after;

  /** The start of an inbound frame whose rest is in DATA frames still to come. */
  ByteBuf partial;
  /** The bytes of {@link #partial} charged to the connection's read budget. */
  int charged;
  /** Inbound bytes delivered but not yet given back to flow control (reads paused). */
  int owed;
  /** In the mapping's list of streams to give their window back on resume. */
  boolean owing;

  MappedStream(StreamMapping mapping, int rsocketId) {
    this.mapping = mapping;
    this.rsocketId = rsocketId;
  }

  void releasePartial() {
    mapping.reassembler.uncharge(this);
    ByteBuf p = partial;
    partial = null;
    if (p != null) {
      p.release();
    }
  }

  @Override
  public void onHeaders(Http2Stream stream, Http2Headers headers, boolean endStream) {
    mapping.onHeaders(this, headers, endStream);
  }

  @Override
  public int onData(Http2Stream stream, ByteBuf data, int padding, boolean endStream) {
    return mapping.onData(this, data, padding, endStream);
  }

  @Override
  public void onReset(Http2Stream stream, long errorCode) {
    mapping.onReset(this, errorCode);
  }

  @Override
  public void onClosed(Http2Stream stream) {
    mapping.onStreamClosed(this);
  }

  @Override
  public String toString() {
    return "MappedStream{rsocket=" + rsocketId + ", h2=" + (h2 == null ? "-" : h2.id()) + ", kind=" + kind
        + (localEnded ? ", localEnded" : "") + (outDone ? ", outDone" : "") + (inDone ? ", inDone" : "") + "}";
  }
}
