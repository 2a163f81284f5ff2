package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.virtualthreads.BlockingChannel;
import io.sluice.virtualthreads.BlockingClient;
import io.sluice.virtualthreads.BlockingRequester;
import io.sluice.virtualthreads.BlockingResponder;
import io.sluice.virtualthreads.BlockingSink;
import io.sluice.virtualthreads.BlockingStream;
import io.sluice.virtualthreads.EventLoopThreads;
import io.sluice.virtualthreads.HandlerThreads;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;

/**
 * The virtual-threads (blocking) flavor in the shared suite. Its client reads streams through
 * iterators that keep {@link #PREFETCH} messages of credit granted ahead of the consumer, so the
 * suite's demand becomes "how many messages the consuming thread may take".
 *
 * <p>{@link #EVENT_LOOP} is the same flavor with every virtual thread carried by the connection's
 * event loop: server handlers ({@link HandlerThreads#EVENT_LOOP_VIRTUAL}) and the client's calling
 * and consuming threads ({@link BlockingRequester#eventLoopThreads()}).
 */
final class VtFlavor implements Flavor {
  static final VtFlavor INSTANCE = new VtFlavor(false);
  static final VtFlavor EVENT_LOOP = new VtFlavor(true);
  static final int PREFETCH = 4;

  private final boolean onEventLoop;

  private VtFlavor(boolean onEventLoop) {
    this.onEventLoop = onEventLoop;
  }

  @Override
  public String name() {
    return onEventLoop ? "virtualthreads-eventloop" : "virtualthreads";
  }

  @Override
  public void assumeRunnable() {
    if (onEventLoop) {
      // JDK 21-23 virtual threads hold their carrier inside synchronized: EventLoopThreads refuses.
      Assumptions.assumeTrue(
          Runtime.version().feature() >= 24, "event-loop virtual threads need JDK 24+");
    }
  }

  @Override
  public Responder server(ServerProbe probe, Requester connection) {
    return server(
        probe,
        onEventLoop
            ? EventLoopThreads.executor(connection.executor())
            : Executors.newVirtualThreadPerTaskExecutor());
  }

  @Override
  public long maxAhead() {
    return PREFETCH;
  }

  @Override
  public Responder server(ServerProbe probe) {
    if (onEventLoop) {
      throw new IllegalStateException("needs the connection: server(probe, connection)");
    }
    return server(probe, Executors.newVirtualThreadPerTaskExecutor());
  }

  private Responder server(ServerProbe probe, Executor handlerThreads) {
    return BlockingClient.toResponder(
        new BlockingResponder() {
          @Override
          public void fireAndForget(Message request) {
            probe.fnf.add(text(request));
          }

          @Override
          public Message requestResponse(Message request) {
            String data = text(request);
            switch (data) {
              case "error":
                throw boom();
              case "never":
                try {
                  new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                  probe.rrCanceled.complete(null); // the requester's cancel interrupts us
                }
                throw new CancellationException();
              default:
                return msg("echo:" + data);
            }
          }

          @Override
          public void requestStream(Message request, BlockingSink out) {
            String data = text(request);
            if (data.startsWith("count:") || data.startsWith("fail:")) {
              for (int i = 0; i < arg(data); i++) {
                out.send(msg(Integer.toString(i)));
              }
              if (data.startsWith("fail:")) {
                throw boom();
              }
              return;
            }
            try {
              while (true) {
                out.send(msg(Long.toString(probe.emitted.get())));
                probe.emitted.incrementAndGet();
              }
            } catch (CancellationException e) {
              probe.streamCanceled.complete(null);
            }
          }

          @Override
          public void requestChannel(Message first, BlockingStream in, BlockingSink out) {
            String data = text(first);
            if (data.startsWith("take:")) {
              for (int i = 0; i < arg(data) && in.hasNext(); i++) {
                out.send(msg("got:" + text(in.next())));
              }
              return; // completes our half; the adapter tells the requester to stop
            }
            while (in.hasNext()) {
              out.send(msg("echo:" + text(in.next())));
            }
          }
        },
        handlerThreads,
        PREFETCH);
  }

  @Override
  public Client client(Requester requester) {
    BlockingRequester r = new BlockingRequester(requester);
    ThreadFactory threads =
        onEventLoop ? r.eventLoopThreads() : Thread.ofVirtual().factory();
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        start(
            threads,
            () -> {
              try {
                r.fireAndForget(msg(data));
                f.complete(null);
              } catch (Throwable t) {
                f.completeExceptionally(t);
              }
            });
        return f;
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread t =
            start(
                threads,
                () -> {
                  try {
                    Message m = r.requestResponse(msg(data));
                    result.complete(m == null ? null : text(m));
                  } catch (Throwable e) {
                    result.completeExceptionally(e);
                  }
                });
        return Call.of(result, () -> t.interrupt()); // interrupting a blocked call cancels its stream
      }

      @Override
      public Probe requestStream(String data) {
        return consume(threads, r.requestStream(msg(data), PREFETCH));
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        BlockingChannel ch = r.requestChannel(msg(outbound.get(0)), PREFETCH);
        Probe p = consume(threads, ch.inbound());
        start(
            threads,
            () -> {
              try {
                for (String s : outbound.subList(1, outbound.size())) {
                  ch.send(msg(s));
                }
                if (complete) {
                  ch.complete();
                  return;
                }
                for (int i = 0; i < 2000 && !ch.isCanceled(); i++) {
                  Thread.sleep(5); // hang guard: the responder is expected to cancel us
                }
                if (ch.isCanceled()) {
                  p.outboundCanceled.complete(null);
                }
              } catch (CancellationException e) {
                p.outboundCanceled.complete(null);
              } catch (Throwable e) {
                p.outboundCanceled.completeExceptionally(e);
              }
            });
        return p;
      }
    };
  }

  /** A consuming virtual thread that takes one message per permit granted by request(n). */
  private static Thread start(ThreadFactory threads, Runnable task) {
    Thread t = threads.newThread(task);
    t.start();
    return t;
  }

  private static Probe consume(ThreadFactory threads, BlockingStream stream) {
    Semaphore permits = new Semaphore(0);
    Thread[] consumer = new Thread[1];
    Probe p =
        new Probe() {
          @Override
          void request(long n) {
            permits.release((int) Math.min(n, Integer.MAX_VALUE / 2));
          }

          @Override
          void cancel() {
            stream.close();
            consumer[0].interrupt();
          }
        };
    consumer[0] =
        start(
            threads,
            () -> {
              try {
                while (true) {
                  // hasNext() only waits (the end of the stream needs no demand); a message
                  // is taken only with a permit.
                  if (!stream.hasNext()) {
                    p.complete();
                    return;
                  }
                  permits.acquire();
                  p.next(stream.next());
                }
              } catch (InterruptedException | CancellationException e) {
                stream.close();
              } catch (Throwable t) {
                p.error(t);
              }
            });
    return p;
  }
}
