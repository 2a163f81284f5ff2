package io.sluice.transport.http2.internal;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import java.util.concurrent.TimeUnit;

/**
 * A server's bound on the frames a client can send that cost the server work without asking for
 * an answer of the application's: at most {@code max} per window of {@code windowNanos}, one more
 * is a connection error ENHANCE_YOUR_CALM. Two kinds share the bound:
 *
 * <ul>
 *   <li>SETTINGS and SETTINGS acks ({@link #settings}): a client sends one or two of each per
 *       connection; counted for the whole window.
 *   <li>PINGs, PING acks, WINDOW_UPDATEs, PRIORITY and frames of unknown types ({@link #other}):
 *       counted until the server next sends HEADERS or DATA ({@link #answered}), as grpc-java's
 *       server counts pings (it strikes them until it sends headers or data, then GOAWAY
 *       "too_many_pings"). A client's keepalive PINGs come seconds apart, its bandwidth probes
 *       and WINDOW_UPDATEs follow the DATA it receives; a flood of them on a connection whose
 *       streams get nothing is cut, whether or not a stream is open.
 * </ul>
 *
 * netty's own bounds stay in force beside this one: the queued control-frame answers (a peer that
 * does not read its PING and SETTINGS acks) and consecutive empty DATA frames. This bound is for
 * the peer that reads, whose answers never queue.
 *
 * <p>Threads: the connection's event loop only.
 */
final class ControlFrameBudget {
  private final int max;
  private final long windowNanos;
  private long windowStart;
  private int settings;
  private int others;

  ControlFrameBudget(int max, long windowNanos) {
    this.max = max;
    this.windowNanos = windowNanos;
  }

  /** A SETTINGS frame or a SETTINGS ack, at {@code nowNanos} (the event loop's clock). */
  void settings(String what, long nowNanos) throws Http2Exception {
    roll(nowNanos);
    settings++;
    check(what);
  }

  /** A PING, PING ack, WINDOW_UPDATE, PRIORITY or unknown frame, at {@code nowNanos}. */
  void other(String what, long nowNanos) throws Http2Exception {
    roll(nowNanos);
    others++;
    check(what);
  }

  /**
   * The server wrote a HEADERS or DATA frame to the wire (not: queued one; a queued write may go
   * out over many of the client's WINDOW_UPDATEs): the other frames so far were not a flood.
   */
  void answered() {
    others = 0;
  }

  private void roll(long now) {
    if ((settings | others) == 0 || now - windowStart >= windowNanos) {
      windowStart = now;
      settings = 0;
      others = 0;
    }
  }

  private void check(String what) throws Http2Exception {
    if (settings + others > max) {
      throw new Http2Exception(
          Http2Error.ENHANCE_YOUR_CALM,
          "more than " + max + " control frames within "
              + TimeUnit.NANOSECONDS.toMillis(windowNanos)
              + " ms without an answer of the server's (" + what + " flood)",
          Http2Exception.ShutdownHint.HARD_SHUTDOWN);
    }
  }
}
