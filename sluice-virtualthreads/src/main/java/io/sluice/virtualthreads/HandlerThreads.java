package io.sluice.virtualthreads;

import io.sluice.Requester;
import java.util.concurrent.Executor;

/**
 * Where blocking handlers run: one new virtual thread per request, of one of two kinds.
 *
 * <p>The constants hold no state and may be used from any thread. With {@link #VIRTUAL} a handler
 * runs on the JDK's carrier threads; with {@link #EVENT_LOOP_VIRTUAL} on the connection's
 * event-loop thread, which does no I/O while it runs. Holds no buffers.
 */
public enum HandlerThreads {
  /** Virtual threads on the JDK's own scheduler (the default). */
  VIRTUAL {
    @Override
    Executor executor(Requester connection) {
      return BlockingClient.VirtualThreads.EXECUTOR;
    }
  },
  /**
   * Virtual threads carried by the connection's event loop (experimental; short handlers only;
   * JDK 24+ with {@code --add-opens java.base/java.lang=ALL-UNNAMED}: see {@link
   * EventLoopThreads}).
   */
  EVENT_LOOP_VIRTUAL {
    @Override
    Executor executor(Requester connection) {
      return EventLoopThreads.executor(connection.executor());
    }

    @Override
    void check() {
      EventLoopThreads.requireAvailable();
    }
  };

  abstract Executor executor(Requester connection);

  void check() {}
}
