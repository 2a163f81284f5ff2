package io.sluice.transport.netty.internal;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * netty's I/O event loop group, whose loops close the channels still registered on them when they
 * shut down, every time. netty 4.2's loop closes them ({@link IoHandler#prepareToDestroy}) only in
 * a turn that begins after the shutdown did: a shutdown without a quiet period that begins while
 * the loop runs its tasks (a shutdown from one of them, or from another thread at that moment)
 * ends the loop with its channels open, their sockets never closed (a listener keeps its port,
 * a connection's peer never hears of the end). Here the loop closes them itself before it agrees
 * to end, then takes one more turn for what the closes queued. The handlers are netty's own, so
 * the group's engine reads as before. Internal: not an API.
 */
final class ClosingEventLoopGroup extends MultiThreadIoEventLoopGroup {
  ClosingEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory factory) {
    super(threads, threadFactory, factory);
  }

  @Override
  protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
    return new ClosingLoop(this, executor, factory, new IoHandler[1]);
  }

  private static final class ClosingLoop extends SingleThreadIoEventLoop {
    /** The loop's handler, as the factory made it in the constructor. */
    private final IoHandler[] handler;
    /** Whether the channels were closed here (on the loop only). */
    private boolean closedAll;

    ClosingLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory factory, IoHandler[] made) {
      super(parent, executor, new IoHandlerFactory() {
        @Override
        public IoHandler newHandler(io.netty.util.concurrent.ThreadAwareExecutor loop) {
          return made[0] = factory.newHandler(loop);
        }

        @Override
        public boolean isChangingThreadSupported() {
          return factory.isChangingThreadSupported();
        }
      });
      this.handler = made;
    }

    @Override
    protected boolean confirmShutdown() {
      if (!super.confirmShutdown()) {
        return false;
      }
      if (closedAll || handler[0] == null || isShutdown()) {
        return true;
      }
      closedAll = true;
      handler[0].prepareToDestroy(); // netty calls it again each turn while shutting down: harmless
      execute(() -> {}); // a task, so the next turn's I/O does not block, and it runs the closes' own
      return false;
    }
  }
}
