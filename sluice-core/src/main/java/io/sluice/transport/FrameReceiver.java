package io.sluice.transport;

import io.netty.buffer.ByteBuf;

/**
 * The protocol core's side of a {@link DuplexTransport}. Every callback is made on the transport's
 * event loop.
 */
public interface FrameReceiver {

  /**
   * Largest inbound frame accepted (without length prefix). Byte-stream transports check the length
   * prefix against it before buffering the frame, and report a breach through {@link
   * #onTransportError}.
   */
  int maxFrameSize();

  /**
   * Outbound bytes the transport may queue before it reports itself unwritable (its high water
   * mark; the low one is half of it).
   */
  int maxQueuedOutboundBytes();

  /**
   * One inbound frame, without length prefix. The buffer is borrowed: valid only during the call;
   * the receiver retains slices of what it keeps, never the buffer itself, and leaves its indexes
   * alone (a transport may lend its read buffer narrowed to the frame). The receiver never throws.
   */
  void onFrame(ByteBuf frame);

  /** The end of one read batch: the core flushes what the batch produced. */
  void onReadComplete();

  /** {@link DuplexTransport#isWritable()} changed. */
  void onWritabilityChanged(boolean writable);

  /**
   * The transport could not decode its input (frame too large, bad length, codec failure). The core
   * answers ERROR[CONNECTION_ERROR] and closes.
   */
  void onTransportError(Throwable cause);

  /** The connection closed; no further callbacks follow. */
  void onClosed();
}
