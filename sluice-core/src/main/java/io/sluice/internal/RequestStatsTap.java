package io.sluice.internal;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.internal.frame.FrameType;
import io.sluice.lease.RequestStats;
import io.sluice.lease.RequestStats.Kind;
import io.sluice.lease.RequestStats.Outcome;

/**
 * How the engine reports the peer's requests to {@link RequestStats}: the connection's one
 * receiver (the options' and the lease policy's, fanned out when both are set; null when none, which
 * costs the engine a null check per request), and calls that a throwing receiver cannot break (it
 * is logged; the request goes on).
 */
final class RequestStatsTap {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(RequestStatsTap.class);

  private RequestStatsTap() {}

  /** The receiver of both, either, or null. */
  static RequestStats combine(RequestStats a, RequestStats b) {
    if (a == null || a == b) {
      return b;
    }
    return b == null ? a : new Both(a, b);
  }

  /** The kind of a request frame type (REQUEST_FNF, REQUEST_RESPONSE, ...). */
  static Kind kind(int frameType) {
    switch (frameType) {
      case FrameType.REQUEST_FNF:
        return Kind.FIRE_AND_FORGET;
      case FrameType.REQUEST_RESPONSE:
        return Kind.REQUEST_RESPONSE;
      case FrameType.REQUEST_STREAM:
        return Kind.REQUEST_STREAM;
      default:
        return Kind.REQUEST_CHANNEL;
    }
  }

  static void start(RequestStats s, int frameType) {
    try {
      s.onStart(kind(frameType));
    } catch (Throwable t) {
      logger.warn("RequestStats.onStart threw", t);
    }
  }

  static void firstResponse(RequestStats s, int frameType, long latencyNanos) {
    try {
      s.onFirstResponse(kind(frameType), latencyNanos);
    } catch (Throwable t) {
      logger.warn("RequestStats.onFirstResponse threw", t);
    }
  }

  static void unanswered(RequestStats s, int frameType) {
    try {
      s.onEndUnanswered(kind(frameType));
    } catch (Throwable t) {
      logger.warn("RequestStats.onEndUnanswered threw", t);
    }
  }

  static void end(RequestStats s, int frameType, long latencyNanos, Outcome outcome) {
    try {
      s.onEnd(kind(frameType), latencyNanos, outcome);
    } catch (Throwable t) {
      logger.warn("RequestStats.onEnd threw", t);
    }
  }

  static void rejected(RequestStats s, int frameType) {
    try {
      s.onRejected(kind(frameType));
    } catch (Throwable t) {
      logger.warn("RequestStats.onRejected threw", t);
    }
  }

  /** A responder's request with stats on: when it arrived, and what was reported of it. */
  static final class Timing {
    final long arrivalNanos;
    /** onStart was reported: onEnd is owed. */
    boolean started;
    /** onFirstResponse was reported. */
    boolean responded;

    Timing(long arrivalNanos) {
      this.arrivalNanos = arrivalNanos;
    }
  }

  /** Two receivers, each told everything (the second even if the first throws). */
  private static final class Both implements RequestStats {
    private final RequestStats a;
    private final RequestStats b;

    Both(RequestStats a, RequestStats b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void onStart(Kind kind) {
      try {
        a.onStart(kind);
      } finally {
        b.onStart(kind);
      }
    }

    @Override
    public void onFirstResponse(Kind kind, long latencyNanos) {
      try {
        a.onFirstResponse(kind, latencyNanos);
      } finally {
        b.onFirstResponse(kind, latencyNanos);
      }
    }

    @Override
    public void onEndUnanswered(Kind kind) {
      try {
        a.onEndUnanswered(kind);
      } finally {
        b.onEndUnanswered(kind);
      }
    }

    @Override
    public void onEnd(Kind kind, long latencyNanos, Outcome outcome) {
      try {
        a.onEnd(kind, latencyNanos, outcome);
      } finally {
        b.onEnd(kind, latencyNanos, outcome);
      }
    }

    @Override
    public void onRejected(Kind kind) {
      try {
        a.onRejected(kind);
      } finally {
        b.onRejected(kind);
      }
    }
  }
}
