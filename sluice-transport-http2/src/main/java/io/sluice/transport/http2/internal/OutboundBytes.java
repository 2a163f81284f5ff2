package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;

/**
 * Bytes a transport handed to HTTP/2 that the socket has not taken yet: queued behind a closed
 * flow-control window, or in the channel's buffer. Each DATA write gets a promise that knows its
 * bytes ({@link #track}); when it completes (written, or dropped with its stream) they leave the
 * count. Above the high water mark the transport is unwritable, back below half of it writable
 * again; the listener hears each change. What {@code isWritable()}, {@code outboundProgress()} and
 * {@code unsentBytes()} of a {@code DuplexTransport} over HTTP/2 report.
 *
 * <p><b>Threads.</b> The channel's event loop only.
 */
final class OutboundBytes implements ChannelFutureListener {
  /** Hears the writability changes. */
  interface Listener {
    void onWritabilityChanged(boolean writable);
  }

  private final Channel channel;
  private final Listener listener;
  private int highWater = 1 << 20;
  private long queued;
  private long written;
  private boolean writable = true;

  OutboundBytes(Channel channel, Listener listener) {
    this.channel = channel;
    this.listener = listener;
  }

  void highWater(int bytes) {
    highWater = Math.max(1, bytes);
  }

  /** The promise of a write of {@code bytes}, counted from now until it completes. */
  ChannelPromise track(int bytes) {
    queued += bytes;
    return new Counted(channel, bytes, this);
  }

  /** After a write: unwritable once above the high water mark. */
  void checkHighWater() {
    if (writable && queued > highWater) {
      writable = false;
      listener.onWritabilityChanged(false);
    }
  }

  @Override
  public void operationComplete(ChannelFuture f) {
    int n = ((Counted) f).bytes;
    queued -= n;
    written += n;
    if (!writable && queued <= highWater / 2) {
      writable = true;
      listener.onWritabilityChanged(true);
    }
  }

  boolean writable() {
    return writable;
  }

  /** Bytes the socket has taken so far. */
  long written() {
    return written;
  }

  /** Bytes handed over and not yet taken. */
  long queued() {
    return queued;
  }

  /** A promise that knows how many bytes its write carries. */
  private static final class Counted extends DefaultChannelPromise {
    final int bytes;

    Counted(Channel channel, int bytes, ChannelFutureListener listener) {
      super(channel);
      this.bytes = bytes;
      addListener(listener);
    }
  }
}
