package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.transport.netty.internal.OutboundProgress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Closes a connection whose peer reads nothing for a while although we have output queued for it:
 * the HTTP/2 connections that no RSocket engine watches (gRPC, gRPC-Web, HTTP/JSON), whose peer
 * could otherwise hold a connection slot, and what netty keeps queued for it, for as long as it
 * likes (a SETTINGS or PING flood from a peer that never reads its ACKs, say). Flow-controlled
 * output that waits for the peer's window is not written, so a peer that merely keeps its windows
 * shut does not count: only bytes the socket will not take.
 *
 * <p>Sits first in the pipeline (next to the socket, below TLS) and counts what is written through
 * it: while the channel is unwritable, progress is that count minus what is still queued. A slow
 * reader makes progress and starts the clock over; a peer that takes nothing for the whole
 * timeout is cut. Confined to the channel's event loop.
 *
 * <p><b>Reads.</b> On a connection served as HTTP/1.1 ({@link #pauseReadsWhileUnwritable}), while
 * the channel is unwritable the guard also stops reading it: autoRead goes off (back on once
 * writable, if the guard turned it off) and a read a handler asks for ({@code ctx.read()}, HTTP/1.1
 * reads that way) is held until then. Otherwise a peer that pipelines requests and never reads the
 * answers has every request read and answered into the channel's buffer until the timeout: memory
 * without bound for as long as it lasts. Not on HTTP/2: there netty's bounds on open streams and
 * resets already bound what a never-reading peer costs, and not reading while unwritable could
 * stall two peers that stream both ways on one connection and each wait for the other to read (why
 * the RSocket engine does not do it either). Costs a branch per read asked for.
 *
 * <p><b>TLS.</b> Below the {@code SslHandler} the guard counts encrypted bytes, and the outbound
 * buffer's count also holds the plaintext the {@code SslHandler} keeps until it encrypts it (and
 * netty's flow-controlled DATA, which it writes only while the channel is writable). So a live
 * peer never looks stalled, but a stalled one looks alive while it makes the server answer it
 * (each PING or SETTINGS ack, encrypted, moves from the plaintext count to the socket's): that
 * peer is cut by the control-frame bound ({@link H2Handler#MAX_CONTROL_FRAMES}) and netty's bound
 * on queued control frames instead.
 */
public final class WriteStallGuard extends ChannelDuplexHandler {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(WriteStallGuard.class);

  private final long timeoutNanos;
  private final LongSupplier clock;
  private long written;
  private long progressAtMark;
  private long unwritableSince;
  private ScheduledFuture<?> check;
  /** autoRead turned off by the guard, to turn back on once writable. */
  private boolean autoReadPaused;
  /** A read asked for while unwritable, to ask for once writable. */
  private boolean readHeld;
  /** Reads stop while unwritable ({@link #pauseReadsWhileUnwritable}): HTTP/1.1 only. */
  private boolean pausesReads;

  WriteStallGuard(long timeoutNanos, LongSupplier clock) {
    this.timeoutNanos = timeoutNanos;
    this.clock = clock;
  }

  /** The guard's name in a pipeline. */
  public static final String NAME = "sluice-write-stall";

  /** Puts a guard with {@code timeout} first in {@code ch}'s pipeline. */
  public static void install(Channel ch, Duration timeout) {
    ch.pipeline().addFirst(NAME, new WriteStallGuard(timeout.toNanos(), System::nanoTime));
  }

  /**
   * Has the guard in {@code ch}'s pipeline, if any, stop reading while the channel is unwritable
   * (see the class comment, Reads): for a connection served as HTTP/1.1. On its event loop.
   */
  public static void pauseReadsWhileUnwritable(Channel ch) {
    WriteStallGuard g = ch.pipeline().get(WriteStallGuard.class);
    if (g != null && !g.pausesReads) {
      g.pausesReads = true;
      if (!ch.isWritable()) {
        g.pause(ch);
      }
    }
  }

  private void pause(Channel ch) {
    if (ch.config().isAutoRead()) {
      autoReadPaused = true;
      ch.config().setAutoRead(false);
    }
  }

  /** The bytes written so far that the socket took ({@link OutboundProgress}). */
  private long progress(Channel ch) {
    return OutboundProgress.of(ch, written);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
    if (msg instanceof ByteBuf b) {
      written += b.readableBytes();
    } else if (msg instanceof ByteBufHolder h) {
      written += h.content().readableBytes();
    }
    ctx.write(msg, promise);
  }

  @Override
  public void read(ChannelHandlerContext ctx) throws Exception {
    if (!pausesReads || ctx.channel().isWritable()) {
      ctx.read();
    } else {
      readHeld = true;
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    Channel ch = ctx.channel();
    if (!ch.isWritable()) {
      unwritableSince = clock.getAsLong();
      progressAtMark = progress(ch);
      if (check == null) {
        check = ctx.executor().schedule(() -> check(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
      }
      if (pausesReads) {
        pause(ch);
      }
    } else {
      resumeReads(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** Reads as before the channel was unwritable: autoRead back on, the held read asked for. */
  private void resumeReads(ChannelHandlerContext ctx) {
    if (autoReadPaused) {
      autoReadPaused = false;
      ctx.channel().config().setAutoRead(true); // asks for a read
    }
    if (readHeld) {
      readHeld = false;
      ctx.read();
    }
  }

  private void check(ChannelHandlerContext ctx) {
    check = null;
    Channel ch = ctx.channel();
    if (!ch.isActive() || ch.isWritable()) {
      return;
    }
    long now = clock.getAsLong();
    long progress = progress(ch);
    if (progress > progressAtMark) { // a slow reader, not a stalled one
      progressAtMark = progress;
      unwritableSince = now;
    }
    long stalled = now - unwritableSince;
    if (stalled < timeoutNanos) {
      check = ctx.executor().schedule(() -> check(ctx), timeoutNanos - stalled, TimeUnit.NANOSECONDS);
      return;
    }
    if (logger.isDebugEnabled()) {
      logger.debug(
          "{}: the peer read nothing for {} ms while our output was queued (write stall timeout): closing",
          ch, TimeUnit.NANOSECONDS.toMillis(stalled));
    }
    ch.close();
  }

  /** Removed (an RSocket connection's engine takes over): reads go on as they were. */
  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelCheck();
    if (ctx.channel().isActive()) {
      resumeReads(ctx);
    }
  }

  private void cancelCheck() {
    if (check != null) {
      check.cancel(false);
      check = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelCheck();
    ctx.fireChannelInactive();
  }
}
