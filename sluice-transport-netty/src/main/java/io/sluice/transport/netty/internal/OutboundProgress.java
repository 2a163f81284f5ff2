package io.sluice.transport.netty.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * How far a channel's peer has read what a handler wrote: the write-stall timeouts of the RSocket
 * transports ({@link NettyDuplexTransport#outboundProgress()}) and of the HTTP/2 connections no
 * engine watches (the HTTP/2 transport's write-stall guard) both compare it over time.
 */
public final class OutboundProgress {
  private OutboundProgress() {}

  /**
   * Of the {@code written} bytes a handler of {@code ch} has written so far, the ones no longer
   * queued in the channel's outbound buffer: it grows as the socket takes bytes, and stands still
   * while the peer reads nothing. The buffer's count also holds what handlers in between keep
   * queued and report to it (an {@code SslHandler}'s plaintext before it is encrypted, netty's
   * HTTP/2 flow-controlled DATA); on the event loop only.
   */
  public static long of(Channel ch, long written) {
    ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
    return written - (b == null ? 0 : b.totalPendingWriteBytes());
  }

  /**
   * Whether {@code ch}'s outbound buffer still holds flushed bytes the socket has not taken (its
   * peer reads slowly, or not at all): what is written now would wait behind them. On the event
   * loop only.
   */
  public static boolean behind(Channel ch) {
    ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
    return b != null && !b.isEmpty();
  }
}
