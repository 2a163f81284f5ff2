package io.sluice.transport;

import io.netty.buffer.ByteBuf;

/**
 * What precedes each RSocket frame on a {@link DuplexTransport.Framing#TRANSPORT_PREFIXED}
 * transport: the transport's own framing (a WebSocket frame header, for example), which the
 * protocol core writes straight into its batch buffers in front of each frame, as it writes the
 * u24 length on {@link DuplexTransport.Framing#LENGTH_PREFIXED} transports. Small frames then go
 * to the transport many to a buffer, with no buffer per frame and no copy in the transport.
 *
 * <p>The prefix may depend on the frame's length (WebSocket headers are 2, 4 or 10 bytes, plus a
 * 4-byte masking key from a client), but not on the frame's content, which is written after it;
 * a transport that must transform the frame's bytes (a WebSocket client masks them) does so when
 * the buffer is handed to {@link DuplexTransport#write}, which passes the buffer's ownership (see
 * {@link DuplexTransport.Framing#TRANSPORT_PREFIXED} for which buffers it may change in place).
 *
 * <p><b>Threads.</b> Called on the connection's event loop only. The core asks {@link
 * DuplexTransport#framePrefix()} once, when the connection is made, and keeps the instance.
 */
public interface FramePrefix {

  /**
   * The most bytes {@link #write} writes for any frame (up to 2^24-1 bytes long). Constant. The
   * core reserves this much in front of each frame, so a frame never has to move once begun.
   */
  int maxLength();

  /**
   * Writes the prefix of a frame of {@code frameLength} bytes at {@code out}'s writer index and
   * advances it by at most {@link #maxLength()} bytes; the frame's bytes follow at once. {@code
   * out} has room for it and must not be kept.
   */
  void write(ByteBuf out, int frameLength);
}
