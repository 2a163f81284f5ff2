package io.sluice.transport.http2.internal;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;

/**
 * The stream mapping's per-stream rules (docs/http2-stream-mapping.md), as pure functions of a
 * {@link MappedStream}'s flags: when a client's or a server's half of an HTTP/2 stream ends after
 * an outbound frame, which inbound frames a stream may carry and which direction they end, and
 * the headers and trailers the mapping writes. No I/O: {@link StreamMapping} writes what these
 * decide.
 */
final class StreamRules {
  private StreamRules() {}

  /** What to do after the last byte of an outbound frame. */
  static final int AFTER_NOTHING = 0;
  static final int AFTER_END_STREAM = 1;
  static final int AFTER_TRAILERS_OK = 2;

  /** Response headers of every mapped stream; never changed, so shared. */
  static final Http2Headers RESPONSE_HEADERS =
      new DefaultHttp2Headers(false, 2).status("200").add(HttpHeaderNames.CONTENT_TYPE, MappingWire.CONTENT_TYPE);
  /** Trailers of a stream that completed; never changed, so shared. */
  static final Http2Headers TRAILERS_OK =
      new DefaultHttp2Headers(false, 1).add(MappingWire.STATUS, MappingWire.STATUS_OK);

  /** When a client's request frame ends its half of the stream. */
  static int clientRequestEnd(MappedStream st, int type, int flags) {
    if ((flags & Frames.FLAG_FOLLOWS) != 0) {
      st.requestOpen = true;
      return AFTER_NOTHING;
    }
    return requestComplete(st, type == FrameType.REQUEST_CHANNEL && (flags & Frames.FLAG_COMPLETE) != 0);
  }

  /** A client's request has passed whole; {@code completed}: a channel's first message completed it. */
  static int requestComplete(MappedStream st, boolean completed) {
    st.requestOpen = false;
    switch (st.kind) {
      case FrameType.REQUEST_FNF:
      case FrameType.REQUEST_RESPONSE:
        st.outDone = true;
        st.localEnded = true;
        return AFTER_END_STREAM;
      case FrameType.REQUEST_STREAM:
        st.outDone = true;
        if (st.unbounded) {
          // Demand 2^31-1 is unbounded: no REQUEST_N will follow, so our half ends here.
          st.localEnded = true;
          return AFTER_END_STREAM;
        }
        return AFTER_NOTHING;
      default:
        st.outDone = completed;
        return AFTER_NOTHING;
    }
  }

  /** A client's PAYLOAD on an open stream: what follows it. */
  static int clientPayload(MappedStream st, int flags) {
    if (st.requestOpen) {
      return (flags & Frames.FLAG_FOLLOWS) != 0
          ? AFTER_NOTHING
          : requestComplete(st, (flags & Frames.FLAG_COMPLETE) != 0);
    }
    if ((flags & (Frames.FLAG_COMPLETE | Frames.FLAG_FOLLOWS)) == Frames.FLAG_COMPLETE) {
      st.outDone = true;
      return endIfDone(st);
    }
    return AFTER_NOTHING;
  }

  /** Ends a client's half once both directions are over. */
  static int endIfDone(MappedStream st) {
    if (st.outDone && st.inDone && !st.localEnded) {
      st.localEnded = true;
      return AFTER_END_STREAM;
    }
    return AFTER_NOTHING;
  }

  /** A server's stream is over once its direction is, and (a channel) the requester's too. */
  static int serverEndIfDone(MappedStream st) {
    if (st.outDone && (st.inDone || st.kind != FrameType.REQUEST_CHANNEL) && !st.localEnded) {
      st.localEnded = true;
      return AFTER_TRAILERS_OK;
    }
    return AFTER_NOTHING;
  }

  /** The trailers of a stream ended by an ERROR (trailers-only when nothing was answered yet). */
  static Http2Headers errorTrailers(MappedStream st, int code, String message) {
    Http2Headers t = new DefaultHttp2Headers(false, 4);
    if (!st.headersDone) {
      // Trailers-only: the status and content type ride with them.
      st.headersDone = true;
      t.status("200").add(HttpHeaderNames.CONTENT_TYPE, MappingWire.CONTENT_TYPE);
    }
    t.add(MappingWire.STATUS, Integer.toString(code));
    if (message != null && !message.isEmpty()) {
      t.add(MappingWire.MESSAGE, MappingWire.encodeMessage(message));
    }
    return t;
  }

  /** The trailers-only answer that ends a fire-and-forget's stream. */
  static Http2Headers fireAndForgetDone() {
    return new DefaultHttp2Headers(false, 3)
        .status("200")
        .add(HttpHeaderNames.CONTENT_TYPE, MappingWire.CONTENT_TYPE)
        .add(MappingWire.STATUS, MappingWire.STATUS_OK);
  }

  /** The RSocket error a client's engine gets for a non-200 {@code :status}. */
  static int httpStatusError(CharSequence status) {
    if (status != null && (AsciiString.contentEquals(status, "503") || AsciiString.contentEquals(status, "429"))) {
      return ErrorCode.REJECTED;
    }
    return ErrorCode.INVALID;
  }

  /**
   * Checks one whole inbound frame of {@code type} against the stream's state, and records which
   * direction it ends.
   *
   * @return why the frame breaks the mapping, or null when it may be delivered
   */
  static String inbound(boolean server, MappedStream st, int type, int flags) {
    boolean follows = (flags & Frames.FLAG_FOLLOWS) != 0;
    if (!server) {
      if (FrameType.isRequest(type) || FrameType.isConnectionScoped(type)) {
        return FrameType.name(type) + " inside a stream";
      }
      if (type == FrameType.PAYLOAD && !follows && (flags & Frames.FLAG_COMPLETE) != 0) {
        st.inDone = true;
      } else if (type == FrameType.ERROR) {
        st.inDone = true;
        st.engineDone = true;
      } else if (type == FrameType.CANCEL) {
        st.outDone = true; // the responder cancels the channel's requester direction
      }
      return null;
    }
    if (st.kind == 0) {
      if (!FrameType.isRequest(type)) {
        return "the first frame of a stream must be a request, not " + FrameType.name(type);
      }
      if (st.pathKind != 0 && st.pathKind != type) {
        return FrameType.name(type) + " sent to the path of another interaction";
      }
      st.kind = type;
      st.requestOpen = follows;
      if (!follows && (type != FrameType.REQUEST_CHANNEL || (flags & Frames.FLAG_COMPLETE) != 0)) {
        st.inDone = true; // the requester sends nothing more that needs an answer
      }
    } else if (FrameType.isRequest(type) || FrameType.isConnectionScoped(type)) {
      return FrameType.name(type) + " inside a stream";
    } else if (type == FrameType.PAYLOAD) {
      if (st.requestOpen) {
        st.requestOpen = follows;
        if (!follows && (st.kind != FrameType.REQUEST_CHANNEL || (flags & Frames.FLAG_COMPLETE) != 0)) {
          st.inDone = true;
        }
      } else if (!follows && (flags & Frames.FLAG_COMPLETE) != 0) {
        st.inDone = true;
      }
    } else if (type == FrameType.ERROR || type == FrameType.CANCEL) {
      st.engineDone = true;
    }
    return null;
  }
}
