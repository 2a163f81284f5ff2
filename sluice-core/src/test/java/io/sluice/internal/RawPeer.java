package io.sluice.internal;

import io.sluice.internal.frame.Frames;
import io.sluice.transport.FrameReceiver;

/**
 * A raw peer's end of a {@link PipeTransport} in a test: it sees each frame in {@link #onFrame} and
 * nothing else (any frame size, 1 MiB of queued output, every other event ignored). Tests that
 * play a hand-written server against the engine extend it.
 */
abstract class RawPeer implements FrameReceiver {
  @Override
  public int maxFrameSize() {
    return Frames.MAX_FRAME_SIZE;
  }

  @Override
  public int maxQueuedOutboundBytes() {
    return 1 << 20;
  }

  @Override
  public void onReadComplete() {}

  @Override
  public void onWritabilityChanged(boolean writable) {}

  @Override
  public void onTransportError(Throwable cause) {}

  @Override
  public void onClosed() {}
}
