package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Keepalive for the HTTP/2 connections that no RSocket engine watches (gRPC, gRPC-Web and JSON over
 * HTTP/2): once a connection has read nothing for {@code time}, the server sends a PING; if nothing
 * at all is read within {@code timeout} after it (the PING's ack, or anything else), the connection
 * is closed. A client that crashed or lost its network without a FIN would otherwise hold a
 * connection slot and its streams for as long as the kernel keeps the socket (a half-open
 * connection is kept forever when nothing is written to it). Anything read counts as life, as in
 * grpc-java's keepalive; a live peer only acks one PING per {@code time} of silence.
 *
 * <p>Reads are noted with a flag, not a clock: a connection found to have read since the last
 * check is checked again {@code time} later, so silence is seen between {@code time} and twice
 * {@code time} after the last read. A connection not (yet) speaking HTTP/2 (HTTP/1.1 has its own
 * idle timeout) is left alone.
 *
 * <p>Sits first in the pipeline, below TLS: encrypted bytes count as reads too. Confined to the
 * channel's event loop.
 */
public final class H2KeepAlive extends ChannelDuplexHandler {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(H2KeepAlive.class);

  /** The handler's name in the pipeline. */
  public static final String NAME = "sluice-h2-keepalive";

  /** The silence after which a PING goes out, unless a server is told otherwise: grpc-java's server default. */
  public static final Duration DEFAULT_TIME = Duration.ofHours(2);
  /** The wait for anything read after a PING, unless a server is told otherwise: grpc-java's server default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

  /** The 8 bytes of the server's keepalive PINGs. */
  static final long PING_DATA = 0x736c7569636b6561L;

  private final long timeNanos;
  private final long timeoutNanos;
  private ChannelHandlerContext ctx;
  private boolean readSeen;
  private ScheduledFuture<?> timer;

  H2KeepAlive(long timeNanos, long timeoutNanos) {
    this.timeNanos = timeNanos;
    this.timeoutNanos = timeoutNanos;
  }

  /** Adds keepalive to {@code ch}: a PING after {@code time} without reads, a close {@code timeout} after it. */
  public static void install(Channel ch, Duration time, Duration timeout) {
    ch.pipeline().addFirst(NAME, new H2KeepAlive(time.toNanos(), timeout.toNanos()));
  }

  /**
   * Checks a keepalive setting: a time of at least 1 s (a client's answers count against the
   * connection's bound on control frames, 1,000 per 10 s), a positive timeout.
   *
   * @throws IllegalArgumentException if either is not
   */
  public static void check(Duration time, Duration timeout) {
    java.util.Objects.requireNonNull(time, "time");
    java.util.Objects.requireNonNull(timeout, "timeout");
    if (time.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("keepalive time must be at least 1 s, got " + time);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("keepalive timeout must be positive, got " + timeout);
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (ctx.channel().isActive()) {
      start();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start();
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    readSeen = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  private void start() {
    if (timer == null) {
      readSeen = true; // the accept counts: silence is measured from it
      timer = ctx.executor().schedule(this::idleCheck, timeNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void stop() {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  /** {@code time} after the last check: ping a connection that read nothing since. */
  private void idleCheck() {
    if (!ctx.channel().isActive()) {
      return;
    }
    H2Handler h2 = ctx.pipeline().get(H2Handler.class);
    if (readSeen || h2 == null) {
      readSeen = false;
      timer = ctx.executor().schedule(this::idleCheck, timeNanos, TimeUnit.NANOSECONDS);
      return;
    }
    h2.encoder().writePing(h2.ctx(), false, PING_DATA, h2.newPromise());
    h2.flushNow();
    timer = ctx.executor().schedule(this::pingCheck, timeoutNanos, TimeUnit.NANOSECONDS);
  }

  /** {@code timeout} after a PING: close a connection that read nothing since. */
  private void pingCheck() {
    if (!ctx.channel().isActive()) {
      return;
    }
    if (readSeen) {
      readSeen = false;
      timer = ctx.executor().schedule(this::idleCheck, timeNanos, TimeUnit.NANOSECONDS);
      return;
    }
    if (logger.isDebugEnabled()) {
      logger.debug("{}: no answer to a keepalive PING within {} ms, closing", ctx.channel(),
          TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
    }
    ctx.close();
  }
}
