package io.sluice.transport;

/**
 * An inbound frame is larger than {@link FrameReceiver#maxFrameSize()}.
 *
 * <p><b>Threads and buffers.</b> Immutable; holds no buffer (the transport released or never read
 * the frame).
 */
public final class FrameTooLargeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public FrameTooLargeException(long size, int max) {
    super("frame of " + size + " bytes exceeds the limit of " + max + " bytes", null, false, false);
  }
}
