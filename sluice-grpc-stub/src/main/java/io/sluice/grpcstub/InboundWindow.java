package io.sluice.grpcstub;

/**
 * gRPC's automatic inbound flow control mapped onto RSocket's request-n, for one stream's inbound
 * half. grpc-java bounds what a peer may have in flight in bytes (the HTTP/2 flow-control window,
 * 1 MiB by default in grpc-netty); RSocket grants messages. So the window, in messages, is {@link
 * #BYTES} divided by the average wire size of the messages delivered since the last top-up (data,
 * metadata and {@link #FRAME_OVERHEAD}), kept between {@link #MIN} and {@link #MAX}. It starts at
 * {@link GrpcRequester#WINDOW} (no size is known when the request goes out). Once the credit still
 * outstanding has fallen to half the window, one REQUEST_N tops it up to the whole window.
 *
 * <p>Small messages therefore get a window large enough that the peer never waits for a round trip
 * of REQUEST_N (256 messages of 8 bytes are 4 KiB, gone before the next REQUEST_N arrives); large
 * ones a window that keeps about {@link #BYTES} in flight, never fewer than {@link #MIN} messages.
 * Credit already granted cannot be taken back: if a stream's messages grow, the window shrinks from
 * the next top-up on.
 *
 * <p>Not thread-safe: the stream's event loop only.
 */
final class InboundWindow {
  /** Bytes of messages the peer may have in flight, as grpc-netty's default window. */
  static final long BYTES = 1 << 20;

  /** The smallest window, in messages, whatever their size. */
  static final int MIN = 16;

  /** The largest window, in messages, however small they are. */
  static final int MAX = 1 << 16;

  /** Bytes a message costs beyond its payload: TCP length prefix (3) and frame header (6). */
  static final int FRAME_OVERHEAD = 9;

  private long window = GrpcRequester.WINDOW;
  private long outstanding = GrpcRequester.WINDOW; // granted, not yet delivered
  private int count; // delivered since the last top-up
  private long bytes; // their wire size

  /** The credit to ask for when the stream starts. */
  int initial() {
    return GrpcRequester.WINDOW;
  }

  /** The current window, in messages. */
  long window() {
    return window;
  }

  /**
   * One message of {@code size} bytes (data and metadata) was delivered. Returns the credit to
   * grant now with one REQUEST_N, or 0.
   */
  long delivered(int size) {
    count++;
    bytes += (long) size + FRAME_OVERHEAD;
    if (--outstanding > window >> 1) {
      return 0;
    }
    return topUp();
  }

  /** Half the window is used: resizes it and returns the credit that tops it up (or 0). */
  private long topUp() {
    long average = Math.max(1, bytes / count);
    window = Math.max(MIN, Math.min(MAX, BYTES / average));
    count = 0;
    bytes = 0;
    long n = window - outstanding;
    if (n <= 0) {
      return 0; // messages grew: the credit already granted is more than the new window
    }
    outstanding = window;
    return n;
  }
}
