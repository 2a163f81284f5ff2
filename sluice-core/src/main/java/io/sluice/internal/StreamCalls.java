package io.sluice.internal;

import io.sluice.Message;
import io.sluice.StreamHandle;

/**
 * Batched outbound calls for flavors whose senders run off the event loop (Sluice's own modules
 * only). Instead of one queued command per message, a flavor queues one task with {@link
 * #runInOrder} and, inside it, makes the calls with the {@code *InPlace} methods: the task runs at
 * the place in the connection's command order where the calls would have run, so they act at
 * once instead of being queued again behind whatever other streams queued meanwhile.
 */
public final class StreamCalls {
  private StreamCalls() {}

  /**
   * Runs {@code task} on the stream's event loop in order with the calls the calling thread made
   * on the stream's connection before: queued behind them like a call of its own, or run at once
   * on the loop with nothing queued. From a thread carried by the loop ({@link LoopAffinity}) it
   * runs as soon as that thread yields, so what it sends joins the batch the loop is writing. For
   * a handle that is not one of Sluice's streams, a task on the handle's executor.
   *
   * <p>Once the loop has shut down, the task runs on a thread standing in for it after the
   * connection has closed (see {@code SluiceConnection}), so the calls it makes take the way of a
   * closed stream: messages are released, nothing is sent.
   *
   * @throws java.util.concurrent.RejectedExecutionException for a handle that is not one of
   *     Sluice's streams, once its executor has shut down
   */
  public static void runInOrder(StreamHandle stream, Runnable task) {
    if (stream instanceof StreamState s) {
      s.conn.commands.enqueueOrRun(task);
    } else {
      stream.executor().execute(task);
    }
  }

  /** {@link StreamHandle#next} (or {@code nextAndComplete}) from a {@link #runInOrder} task. */
  public static void nextInPlace(StreamHandle stream, Message message, boolean complete) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.doNext(message, complete);
    } else if (complete) {
      stream.nextAndComplete(message);
    } else {
      stream.next(message);
    }
  }

  /** {@link StreamHandle#complete} from a {@link #runInOrder} task. */
  public static void completeInPlace(StreamHandle stream) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.doComplete();
    } else {
      stream.complete();
    }
  }

  /** {@link StreamHandle#error} from a {@link #runInOrder} task. */
  public static void errorInPlace(StreamHandle stream, Throwable cause) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.doError(cause);
    } else {
      stream.error(cause);
    }
  }

  /** {@link StreamHandle#request} from a {@link #runInOrder} task. */
  public static void requestInPlace(StreamHandle stream, long n) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.doRequest(n);
    } else {
      stream.request(n);
    }
  }

  /**
   * From a {@link #runInOrder} task: hands what the connection has written so far to the socket
   * now, rather than at the end of the loop's turn — unless the loop is in the middle of a read
   * batch, whose end flushes anyway. For a thread carried by the loop that goes on running (it
   * yielded only to get its frames out), the end of the turn may be a long way off.
   */
  public static void flushInPlace(StreamHandle stream) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.conn.out.flushOutsideReadBatch();
    }
  }

  /** {@link StreamHandle#cancel} from a {@link #runInOrder} task. */
  public static void cancelInPlace(StreamHandle stream) {
    StreamState s = onItsLoop(stream);
    if (s != null) {
      s.doCancel();
    } else {
      stream.cancel();
    }
  }

  /** The stream as the core's own, when called on its event loop; otherwise null. */
  private static StreamState onItsLoop(StreamHandle stream) {
    return stream instanceof StreamState s && s.conn.loop.inEventLoop() ? s : null;
  }
}
