package io.sluice.virtualthreads;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Adapts a {@link BlockingResponder} to the core's {@link Responder}: each request is handed to
 * the executor (a new virtual thread per task by default) with a {@link Pipe} as its stream.
 */
final class BlockingResponderAdapter implements Responder {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(BlockingResponderAdapter.class);
  private final BlockingResponder handler;
  private final Executor executor;
  private final int prefetch;

  BlockingResponderAdapter(BlockingResponder handler, Executor executor, int prefetch) {
    this.handler = Objects.requireNonNull(handler, "handler");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.prefetch = prefetch;
  }

  @Override
  public void fireAndForget(Message request) {
    run(
        () -> {
          try {
            handler.fireAndForget(request);
          } catch (Throwable t) {
            logger.debug("fireAndForget handler failed", t);
          }
        },
        request);
  }

  @Override
  public void metadataPush(Message metadata) {
    run(
        () -> {
          try {
            handler.metadataPush(metadata);
          } catch (Throwable t) {
            logger.debug("metadataPush handler failed", t);
          }
        },
        metadata);
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    Worker w = new Worker();
    run(
        () -> {
          w.thread(Thread.currentThread());
          try {
            Message m = handler.requestResponse(request);
            if (m == null) {
              response.complete();
            } else {
              response.nextAndComplete(m); // released by the core if the requester canceled
            }
          } catch (Throwable t) {
            response.error(t);
          } finally {
            w.thread(null);
            Thread.interrupted(); // a cancel's interrupt must not leak into the next task
          }
        },
        request,
        response);
    return w;
  }

  /**
   * A request-response handler's side of its stream: nothing arrives on it but the requester's
   * cancel (or the connection's failure), which interrupts the handler's thread — also one that
   * came before the thread started. Lighter than a {@link Pipe}, made once per request.
   */
  private static final class Worker implements StreamListener {
    private volatile Thread thread;
    private volatile boolean canceled;

    void thread(Thread t) {
      thread = t;
      if (t != null && canceled) {
        t.interrupt();
      }
    }

    @Override
    public void onNext(Message message) {
      message.release(); // a request-response has no inbound messages after the request
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      onCancel();
    }

    @Override
    public void onCancel() {
      canceled = true;
      Thread t = thread;
      if (t != null) {
        t.interrupt();
      }
    }
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    Pipe p = new Pipe(prefetch, true, true, false);
    p.handle(stream);
    run(
        () -> {
          p.worker(Thread.currentThread());
          try {
            handler.requestStream(request, p);
            p.complete();
          } catch (Throwable t) {
            p.error(t);
          } finally {
            p.worker(null);
            Thread.interrupted();
          }
        },
        request,
        stream);
    return p;
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    Pipe p = new Pipe(prefetch, false, inboundComplete, false);
    p.handle(channel);
    run(
        () -> {
          p.worker(Thread.currentThread());
          try {
            handler.requestChannel(first, p, p);
            p.complete();
            p.close();
            if (!p.inboundEnded()) {
              p.cancelStream(); // our half is done and nobody reads theirs: tell them to stop
            }
          } catch (Throwable t) {
            p.error(t);
            p.close();
          } finally {
            p.worker(null);
            Thread.interrupted();
          }
        },
        first,
        channel);
    return p;
  }

  private void run(Runnable task, Message owned) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      owned.release();
      logger.warn("handler executor rejected a task", e);
    }
  }

  private void run(Runnable task, Message owned, StreamHandle handle) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      owned.release();
      handle.error(e);
    }
  }
}
