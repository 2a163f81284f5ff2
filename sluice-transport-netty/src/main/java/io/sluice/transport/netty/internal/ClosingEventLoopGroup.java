package io.sluice.transport.netty.internal;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * netty's I/O event loop group, whose loops close the channels still registered on them when they
 * shut down, every time. netty 4.2's loop closes them ({@link IoHandler#prepareToDestroy}) only in
 * a turn whose I/O ended after the shutdown began: a shutdown without a quiet period that begins
 * while the loop runs its tasks (a shutdown from one of them, or from another thread at that
 * moment) ends the loop with its channels open, their sockets never closed (a listener keeps its
 * port, a connection's peer never hears of the end). Here a loop that is about to end without such
 * a turn closes them itself and takes one more turn for what the closes queued. The handlers are
 * netty's own, so the group's engine reads as before. Internal: not an API.
 */
final class ClosingEventLoopGroup extends MultiThreadIoEventLoopGroup {
  ClosingEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory factory) {
    super(threads, threadFactory, factory);
  }

  @Override
  protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
    return new ClosingLoop(this, executor, factory);
  }

  private static final class ClosingLoop extends SingleThreadIoEventLoop {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ClosingLoop.class);

    /**
     * Whether the loop's last I/O ended with the loop shutting down: netty then closes the
     * channels in that turn itself. On the loop only.
     */
    private boolean closingThisTurn;
    /** Whether the loop closed the channels itself. On the loop only. */
    private boolean closedAll;

    ClosingLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory factory) {
      super(parent, executor, factory);
    }

    @Override
    protected int runIo() {
      int handled = super.runIo();
      closingThisTurn = isShuttingDown(); // the turn then goes on to prepareToDestroy
      return handled;
    }

    @Override
    protected boolean confirmShutdown() {
      if (!super.confirmShutdown()) {
        return false;
      }
      if (closedAll || closingThisTurn) {
        return true;
      }
      closedAll = true;
      try {
        ioHandler().prepareToDestroy();
      } catch (RuntimeException | Error e) {
        logger.warn("{}: closing the channels still open as the loop ends failed", this, e);
        return true;
      }
      if (isShutdown()) {
        return true; // shutdown(): no more tasks; the selector's or ring's end releases the sockets
      }
      execute(() -> {}); // a task, so the next turn's I/O does not block, and it runs the closes' own
      return false;
    }
  }
}
