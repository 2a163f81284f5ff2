package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.transport.netty.internal.OutboundProgress;
import java.net.SocketAddress;

/**
 * Gathers an HTTP/2 connection's small writes into one buffer until the next flush (or a large
 * write, or a full buffer), so that the socket gets one buffer where it got a frame header here, a
 * short header block there: a server answering eight streams in a loop turn wrote some twenty
 * buffers of a few dozen bytes each (each answer's HEADERS and DATA frame header, its trailers,
 * netty's WINDOW_UPDATEs), every one an entry of the channel's outbound buffer to add, gather into
 * the socket's write and release. Writes of up to {@link #SMALL} bytes are copied (and released);
 * a larger one first sends what was gathered, then goes as it is, so the order on the wire is
 * the order of the writes, and large messages are never copied. The short way of {@link
 * H2Answers} puts its frame headers straight into the gathering buffer ({@link #append}).
 *
 * <p>Sits right below the {@link H2Handler} (which puts it there), so it sees every write the
 * connection makes, netty's codec's and the short way's. A gathered write's promise completes
 * with the write of the buffer its bytes went into (an empty write's with the bytes gathered
 * before it, or, if none are, it goes as it is). What is gathered goes on at every flush, close, disconnect and
 * deregistration, and when the handler is removed: nothing is held past the writes that would
 * have carried it.
 *
 * <p>The bytes are gathered in one buffer per flush (a new one when it is full): what goes on
 * before a large write is a slice of it, and at the flush the rest of it goes as it is, so a loop
 * turn costs one allocation however many times it is cut; a flush of only a few bytes behind
 * bytes the socket has not taken copies them into a buffer of their size instead, so that what the
 * channel holds for a peer that reads nothing stays near what it counts. A gathering buffer the
 * socket emptied within its flush (or one let go unsent) is kept for the next one of any
 * connection on the same event loop ({@link #SPARE}: one per loop thread, so an idle connection
 * holds none), when the channel uses netty's default allocator: an allocation fewer per flush.
 *
 * <p>The channel's outbound buffer counts gathered bytes only once they go on (at the latest at the
 * loop turn's flush, and never more than {@link #CHUNK} of them): the writability it reports lags
 * by at most that much. Confined to the channel's event loop.
 */
final class SmallWrites extends ChannelOutboundHandlerAdapter {
  /**
   * A gathering buffer no one else holds any more, for the next connection of this event loop's
   * thread that needs one: at most one per thread, and only on threads that release their fast
   * thread-locals as they end (netty's event loops), where {@link FastThreadLocal#onRemoval}
   * releases it.
   */
  static final FastThreadLocal<ByteBuf> SPARE =
      new FastThreadLocal<>() {
        @Override
        protected void onRemoval(ByteBuf spare) {
          if (spare != null) {
            spare.release();
          }
        }
      };

  /** Writes of at most this many bytes are gathered. */
  static final int SMALL = 2048;
  /** The buffer small writes are gathered in: what goes on at once at the latest. */
  static final int CHUNK = 8192;

  private ChannelHandlerContext ctx;
  /** The buffer gathered bytes are in (null when none): unsent from {@link #from} to its writer index. */
  private ByteBuf chunk;
  private int from;
  /** The promises of the gathered writes but void ones, completed with the write that carries them. */
  private ChannelPromise[] promises = new ChannelPromise[8];
  private int promiseCount;
  /** The handler is being removed: writes are no longer gathered. */
  private boolean gone;

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    // A write that fails at once (the channel closed) runs its listeners, which may write again
    // through a handler above that still points here: from now on such a write goes as it is,
    // and what the short way appends meanwhile goes too.
    gone = true;
    for (int i = 0; chunk != null; i++) {
      if (i == 16) {
        dropGathered(new IllegalStateException("writes kept coming while the HTTP/2 connection's handlers went"));
        return;
      }
      sendAll();
    }
  }

  /** Releases what is gathered and fails its promises. */
  private void dropGathered(Throwable cause) {
    ByteBuf c = chunk;
    chunk = null;
    if (c != null) {
      c.release();
    }
    ChannelPromise[] failed = java.util.Arrays.copyOf(promises, promiseCount);
    java.util.Arrays.fill(promises, 0, promiseCount, null);
    promiseCount = 0;
    for (ChannelPromise p : failed) { // their listeners may write again: into the emptied array
      p.tryFailure(cause);
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf buf && !gone) {
      int n = buf.readableBytes();
      if (n == 0) {
        // No bytes to gather: its promise (netty's close after a GOAWAY waits on one) completes
        // with the write of the bytes gathered before it, or, when there are none, it goes as it is.
        if (chunk != null && chunk.writerIndex() > from) {
          buf.release();
          keep(promise);
          return;
        }
        ctx.write(msg, promise);
        return;
      }
      if (n <= SMALL) {
        try {
          room(n).writeBytes(buf, buf.readerIndex(), n);
        } finally {
          buf.release();
        }
        keep(promise);
        return;
      }
    }
    send();
    ctx.write(msg, promise);
  }

  /**
   * Appends {@code n} bytes to what is gathered, as a write with {@code promise} would, and returns
   * the buffer they are in: the caller sets them, from the buffer's writer index minus {@code n},
   * at once (before any other write on the channel). {@code n} at most {@link #SMALL}.
   */
  ByteBuf append(int n, ChannelPromise promise) {
    if (n <= 0 || n > SMALL) {
      throw new IllegalArgumentException(n + " bytes is not a small write (1 to " + SMALL + ")");
    }
    if (!promise.isVoid() && promise.channel() != ctx.channel()) {
      throw new IllegalArgumentException("a promise of another channel: " + promise.channel());
    }
    ByteBuf c = room(n);
    c.writerIndex(c.writerIndex() + n);
    keep(promise);
    return c;
  }

  /** The gathering buffer with room for {@code n} more bytes (a full one sent and let go). */
  private ByteBuf room(int n) {
    ByteBuf c = chunk;
    while (c == null || c.writableBytes() < n) {
      if (c != null) {
        sendAll(); // a failed write's listeners may write again, into a chunk of their own
      }
      if (chunk == null) {
        ByteBuf spare = recycles() ? SPARE.getAndSet(null) : null;
        chunk = spare != null ? spare : ctx.alloc().buffer(CHUNK, CHUNK);
        from = 0;
      }
      c = chunk;
    }
    return c;
  }

  /**
   * Keeps {@code promise} for the write that will carry its bytes. Made uncancellable: its bytes
   * share that write with others (a frame's header with its payload, say), none of which may be
   * dropped; a promise cancelled already is completed with the write all the same (trySuccess).
   */
  private void keep(ChannelPromise promise) {
    if (promise.isVoid()) {
      return;
    }
    promise.setUncancellable();
    if (promiseCount == promises.length) {
      promises = java.util.Arrays.copyOf(promises, promiseCount * 2);
    }
    promises[promiseCount++] = promise;
  }

  /** Sends what is gathered and not sent yet, as one write of a slice; keeps the buffer. */
  private void send() {
    ByteBuf c = chunk;
    if (c != null && c.writerIndex() > from) {
      int end = c.writerIndex();
      ByteBuf part = c.retainedSlice(from, end - from);
      from = end;
      write(part);
    }
  }

  /**
   * Sends what is gathered and not sent yet, and lets go of the buffer: handed over with it, or,
   * when it holds only a little (nothing cut from it went before) and the socket has not taken
   * what was flushed before, copied into a buffer of its size and released, so that the channel's
   * outbound buffer, which counts readable bytes, never holds a mostly empty chunk per flush (a
   * peer that reads nothing while its PINGs are acked would otherwise pin a chunk for each ack of
   * a few bytes). A socket that keeps up takes the chunk at this flush: no copy then.
   */
  private void sendAll() {
    sendAll(false);
  }

  /**
   * {@link #sendAll()}; when {@code keep}, returns the buffer if it went on as it is, with a
   * reference of the caller's ({@link #letGo} it after the flush), else null.
   */
  private ByteBuf sendAll(boolean keep) {
    ByteBuf c = chunk;
    if (c == null) {
      return null;
    }
    chunk = null;
    int end = c.writerIndex();
    if (end == from) {
      letGo(c);
    } else if (from == 0 && end <= CHUNK / 4 && OutboundProgress.behind(ctx.channel())) {
      ByteBuf copy;
      try {
        copy = ctx.alloc().buffer(end, end);
      } catch (RuntimeException | OutOfMemoryError e) {
        write(c); // no memory for a copy: the chunk goes as it is
        return null;
      }
      copy.writeBytes(c, 0, end);
      letGo(c);
      write(copy);
    } else {
      keep = keep && recycles();
      if (keep) {
        c.retain();
      }
      write(c.readerIndex(from));
      return keep ? c : null;
    }
    return null;
  }

  /**
   * Releases this connection's reference to gathering buffer {@code c}; kept as the thread's
   * {@link #SPARE}, emptied, if that one was the last (what went on of it was written and
   * released) and the thread has none.
   */
  private void letGo(ByteBuf c) {
    if (c.refCnt() == 1 && c.capacity() == CHUNK && recycles() && SPARE.get() == null) {
      SPARE.set(c.clear());
    } else {
      c.release();
    }
  }

  /** Whether gathering buffers are kept for reuse on this connection's thread (see {@link #SPARE}). */
  private boolean recycles() {
    return ctx.alloc() == ByteBufAllocator.DEFAULT && FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals();
  }

  /** Writes {@code part} with the kept promises. */
  private void write(ByteBuf part) {
    int count = promiseCount;
    promiseCount = 0;
    if (count == 0) {
      ctx.write(part, ctx.voidPromise());
    } else if (count == 1 && !promises[0].isDone()) {
      ChannelPromise p = promises[0];
      promises[0] = null;
      ctx.write(part, p);
    } else {
      ChannelPromise[] ps = java.util.Arrays.copyOf(promises, count);
      java.util.Arrays.fill(promises, 0, count, null);
      ctx.write(part).addListener(new Completer(ps));
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    ByteBuf handed = sendAll(true);
    try {
      ctx.flush();
    } finally {
      if (handed != null) {
        letGo(handed); // the socket has taken it as a rule (then reused), else it is still queued
      }
    }
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendAll();
    ctx.close(promise);
  }

  @Override
  public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendAll();
    ctx.disconnect(promise);
  }

  @Override
  public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
    sendAll();
    ctx.deregister(promise);
  }

  @Override
  public void connect(
      ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
    sendAll();
    ctx.connect(remote, local, promise);
  }

  /** Completes the promises of gathered writes as the write that carried them completed. */
  private static final class Completer implements ChannelFutureListener {
    private final ChannelPromise[] promises;

    Completer(ChannelPromise[] promises) {
      this.promises = promises;
    }

    @Override
    public void operationComplete(ChannelFuture f) {
      Throwable cause = f.cause();
      for (ChannelPromise p : promises) {
        if (cause == null) {
          p.trySuccess();
        } else {
          p.tryFailure(cause);
        }
      }
    }
  }
}
