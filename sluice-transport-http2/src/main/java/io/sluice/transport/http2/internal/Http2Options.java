package io.sluice.transport.http2.internal;

/**
 * The HTTP/2 defaults, limits and argument checks every HTTP/2 server and client of Sluice shares
 * (the stream mapping, WebSocket over HTTP/2, the one-port server). Internal: not an API.
 */
public final class Http2Options {
  private Http2Options() {}

  public static final int DEFAULT_STREAM_WINDOW = 1 << 20;
  public static final int DEFAULT_MAX_HEADER_LIST = 8192;
  public static final int DEFAULT_MAX_FRAME = 16384;
  /**
   * A server's bound on early resets (streams a client resets before they were answered: rapid
   * reset, CVE-2023-44487): this many per {@link #DEFAULT_EARLY_RESET_WINDOW}; see {@link H2Handler}.
   */
  public static final int DEFAULT_MAX_EARLY_RESETS = 1000;

  public static final java.time.Duration DEFAULT_EARLY_RESET_WINDOW = java.time.Duration.ofSeconds(10);

  public static H2Handler.Limits limits(int maxConcurrentStreams, int streamWindow, int maxHeaderList, boolean connect) {
    long connection = Math.min(Integer.MAX_VALUE, Math.max(4L << 20, 4L * streamWindow));
    return new H2Handler.Limits(
        maxConcurrentStreams, streamWindow, (int) connection, maxHeaderList, DEFAULT_MAX_FRAME, connect);
  }

  /**
   * The limits of a WebSocket over HTTP/2 side: the connect protocol enabled (a server's SETTINGS)
   * and a connection window of a stream window per stream allowed ({@code streams}), so that
   * streams whose RSocket connection stopped reading, each holding its whole window, never close
   * the connection's window on the others.
   */
  public static H2Handler.Limits webSocketLimits(int maxConcurrentStreams, int streams, int streamWindow, int maxHeaderList) {
    long connection = Math.min(Integer.MAX_VALUE, Math.max(4L << 20, (long) streams * streamWindow));
    return new H2Handler.Limits(
        maxConcurrentStreams, streamWindow, (int) connection, maxHeaderList, DEFAULT_MAX_FRAME, true);
  }

  public static int checkWindow(int bytes) {
    if (bytes < 65535 || bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("stream window must be 65535..2^31-1 bytes, got " + bytes);
    }
    return bytes;
  }

  /** Checks a bound on early resets: at least 1 reset, a window of 1 ms to 1 hour. */
  public static void checkEarlyResets(int resets, java.time.Duration window) {
    java.util.Objects.requireNonNull(window, "window");
    if (resets < 1) {
      throw new IllegalArgumentException("early resets must be at least 1, got " + resets);
    }
    if (window.compareTo(java.time.Duration.ofMillis(1)) < 0 || window.compareTo(java.time.Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("the early reset window must be 1 ms..1 h, got " + window);
    }
  }

  public static int checkHeaderList(int bytes) {
    if (bytes < 1024 || bytes > 1 << 20) {
      throw new IllegalArgumentException("max header list size must be 1024..1048576 bytes, got " + bytes);
    }
    return bytes;
  }
}
