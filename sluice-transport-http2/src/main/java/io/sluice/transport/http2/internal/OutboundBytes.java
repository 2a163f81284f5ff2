package io.sluice.transport.http2.internal;

import static io.netty.handler.codec.http2.Http2CodecUtil.FRAME_HEADER_LENGTH;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Bytes a transport handed to HTTP/2 that the socket has not taken yet: queued behind a closed
 * flow-control window, or in the channel's buffer. Each write the transport makes gets a promise
 * that knows its bytes ({@link #track}): DATA exactly; HEADERS, whose HPACK size is known only once
 * written, at an estimate ({@link #headers}); RST_STREAM its 13. When the promise completes
 * (written, or dropped with its stream) they leave the count: the promise tells this count itself
 * as it completes, with no listener of its own (a listener costs a notification round per write:
 * its list, the executor check, three monitors).
 * Above the high water mark the transport is unwritable, back below half of it writable again;
 * the listener hears each change.
 * What {@code isWritable()}, {@code outboundProgress()} and {@code unsentBytes()} of a {@code
 * DuplexTransport} over HTTP/2 report. HEADERS count too because some answers are nothing else (a
 * stream's ERROR is trailers only): a peer that makes us answer that way and reads nothing would
 * otherwise queue answers no count sees. Not counted: the frames netty writes on its own (SETTINGS
 * and PING acks, WINDOW_UPDATE, the resets it decides), few and bounded by netty's limits.
 *
 * <p><b>Threads.</b> The channel's event loop only.
 */
final class OutboundBytes {
  /** Hears the writability changes. */
  interface Listener {
    void onWritabilityChanged(boolean writable);
  }

  private static final InternalLogger logger = InternalLoggerFactory.getInstance(OutboundBytes.class);

  /** An RST_STREAM frame: its header and error code. */
  static final int RST_STREAM = FRAME_HEADER_LENGTH + 4;

  private final Channel channel;
  private final Listener listener;
  /** The connection's flush count ({@code H2Handler#flushes}). */
  private final LongSupplier flushes;
  private int highWater = 1 << 20;
  private long queued;
  /** Of {@link #queued}, the bytes written since the connection's last flush. */
  private long unflushed;
  /** The flush count {@link #unflushed} is counted from. */
  private long flushMark;
  private long written;
  private boolean writable = true;

  OutboundBytes(Channel channel, LongSupplier flushes, Listener listener) {
    this.channel = channel;
    this.flushes = flushes;
    this.listener = listener;
  }

  /** After a flush, nothing written before it is unflushed any more. */
  private void syncFlushes() {
    long f = flushes.getAsLong();
    if (f != flushMark) {
      flushMark = f;
      unflushed = 0;
    }
  }

  void highWater(int bytes) {
    highWater = Math.max(1, bytes);
  }

  /** The promise of a write of {@code bytes}, counted from now until it completes. */
  ChannelPromise track(int bytes) {
    syncFlushes();
    queued += bytes;
    unflushed += bytes;
    return new Counted(channel, bytes, flushMark, this);
  }

  /** The promise of a HEADERS frame carrying {@code headers}, counted at {@link #headers}. */
  ChannelPromise trackHeaders(Http2Headers headers) {
    return track(headers(headers));
  }

  /**
   * The size counted for a HEADERS frame: its frame header and the lengths of its names and
   * values. About what HPACK writes for fields it has not indexed yet; less once it has (a
   * repeated answer's fields shrink to a byte or two each), but then the frame is small anyway.
   */
  static int headers(Http2Headers headers) {
    int n = FRAME_HEADER_LENGTH;
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      n += e.getKey().length() + e.getValue().length();
    }
    return n;
  }

  /** After a write: unwritable once above the high water mark. */
  void checkHighWater() {
    if (writable && queued > highWater) {
      writable = false;
      listener.onWritabilityChanged(false);
    }
  }

  /** {@code c} completed, {@code success} if its bytes were written. */
  void done(Counted c, boolean success) {
    int n = c.bytes;
    syncFlushes();
    queued -= n;
    if (success) {
      written += n; // progress is what the socket took: a failed write (the channel closing) took nothing
    }
    if (c.flushMark == flushMark) {
      unflushed -= n; // done (failed, or dropped with its stream) before any flush
    }
    if (!writable && queued <= highWater / 2) {
      writable = true;
      listener.onWritabilityChanged(true);
    }
  }

  boolean writable() {
    return writable;
  }

  /** Bytes the socket has taken so far (failed writes leave the count, but are not taken). */
  long written() {
    return written;
  }

  /**
   * Bytes handed over and flushed, and not yet taken: what {@code unsentBytes()} reports. The
   * writes made since the last flush do not count (the transport's own, made while it handles a
   * read, wait for the flush at the read's end), else the engine, which asks in the middle of a
   * read whether the peer has taken everything sent, would read "no" after any such write.
   */
  long unsent() {
    syncFlushes();
    return queued - unflushed;
  }

  /**
   * A promise that knows how many bytes its write carries, and tells its count as it completes:
   * first, before the listeners others added to it, as the count's own listener was told when it
   * had one, and with what the count's listener throws caught and logged, as netty does for a
   * listener (it must not reach the channel's outbound buffer, which completes the promise in the
   * middle of its bookkeeping). Every way a promise completes ends in one of the methods below
   * (the no-argument {@code setSuccess()} and {@code trySuccess()} call them); on the event loop
   * only, where nothing else can complete it in between.
   */
  private static final class Counted extends DefaultChannelPromise {
    final int bytes;
    final long flushMark;
    private final OutboundBytes count;

    Counted(Channel channel, int bytes, long flushMark, OutboundBytes count) {
      super(channel);
      this.bytes = bytes;
      this.flushMark = flushMark;
      this.count = count;
    }

    @Override
    public ChannelPromise setSuccess(Void result) {
      if (!isDone()) {
        tell(true);
      }
      return super.setSuccess(result); // throws if it was complete already, as before
    }

    @Override
    public boolean trySuccess(Void result) {
      if (isDone()) {
        return false;
      }
      tell(true);
      return super.trySuccess(result);
    }

    @Override
    public ChannelPromise setFailure(Throwable cause) {
      Objects.requireNonNull(cause, "cause"); // before the count: a refused failure counts nothing
      if (!isDone()) {
        tell(false);
      }
      return super.setFailure(cause);
    }

    @Override
    public boolean tryFailure(Throwable cause) {
      Objects.requireNonNull(cause, "cause");
      if (isDone()) {
        return false;
      }
      tell(false);
      return super.tryFailure(cause);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      // After the fact: a promise made uncancellable refuses, and then nothing is counted.
      if (!super.cancel(mayInterruptIfRunning)) {
        return false;
      }
      tell(false);
      return true;
    }

    private void tell(boolean success) {
      try {
        count.done(this, success);
      } catch (Throwable t) {
        logger.warn("a write's count threw as its promise completed", t);
      }
    }
  }
}
