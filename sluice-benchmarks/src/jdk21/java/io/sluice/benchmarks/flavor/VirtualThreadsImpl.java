package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.core.ConnectionOptions;
import io.sluice.virtualthreads.BlockingChannel;
import io.sluice.virtualthreads.BlockingClient;
import io.sluice.virtualthreads.BlockingRequester;
import io.sluice.virtualthreads.BlockingResponder;
import io.sluice.virtualthreads.BlockingServer;
import io.sluice.virtualthreads.BlockingSink;
import io.sluice.virtualthreads.BlockingStream;
import io.sluice.virtualthreads.HandlerThreads;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * {@code sluice-virtualthreads} end to end: {@link BlockingServer} (each request handled on its own
 * virtual thread, sends waiting for demand) and {@link BlockingClient} with plain blocking calls on
 * virtual threads — {@code window} threads each looping on a blocking request-response, one thread
 * iterating a request-stream with {@code window} messages of prefetch. As {@code
 * sluice-virtualthreads-eventloop}, the same with every one of those virtual threads carried by the
 * connection's event loop ({@code HandlerThreads.EVENT_LOOP_VIRTUAL}, {@code
 * BlockingRequester.eventLoopThreads()}). Built and run only on JDK 21+ (this source folder is
 * compiled in the {@code jdk21} profile).
 */
public final class VirtualThreadsImpl extends FlavorImpl {
  private final boolean onEventLoop;

  /**
   * @param onEventLoop handlers and callers on virtual threads carried by the connection's event
   *     loop ({@code sluice-virtualthreads-eventloop}; the JVM needs java.lang opened), not on the
   *     JDK's scheduler
   */
  public VirtualThreadsImpl(boolean onEventLoop) {
    this.onEventLoop = onEventLoop;
  }

  private ThreadFactory threads(BlockingRequester r, String name, int i) {
    return onEventLoop ? r.eventLoopThreads() : Thread.ofVirtual().name(name, i).factory();
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    ByteBuf payload = payload(size);
    return port(
        BlockingServer.serve(
            serverTransport(),
            ConnectionOptions.defaults(),
            (setup, requester) -> new BlockingResponder() {
              @Override
              public void fireAndForget(Message request) {
                request.release();
                synchronized (fnfReceived) {
                  fnfReceived.increment();
                }
              }

              @Override
              public Message requestResponse(Message request) {
                request.release();
                return Message.of(payload);
              }

              @Override
              public void requestStream(Message request, BlockingSink out) {
                long n = streamLength(request);
                for (long i = 0; i < n; i++) {
                  out.send(Message.of(payload));
                }
              }

              @Override
              public void requestChannel(Message first, BlockingStream in, BlockingSink out) {
                out.send(first);
                while (in.hasNext()) {
                  out.send(in.next());
                }
              }
            },
            onEventLoop ? HandlerThreads.EVENT_LOOP_VIRTUAL : HandlerThreads.VIRTUAL));
  }

  private BlockingRequester connect(int port) {
    BlockingRequester r = BlockingClient.connect(clientTransport(port));
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received)
      throws Exception {
    ByteBuf payload = payload(size);
    BlockingRequester r = connect(port);
    switch (interaction) {
      case "stream":
        countOnThread(
            threads(r, "bench-stream", 0),
            "stream",
            () -> r.requestStream(Message.of(payload), window),
            received);
        break;
      case "channel":
        BlockingChannel c = r.requestChannel(Message.of(payload), window);
        loopOnThreads(
            r, 1, "bench-channel-send-", "channel send", () -> c.send(Message.of(payload)));
        countOnThread(threads(r, "bench-channel-read", 0), "channel", c::inbound, received);
        break;
      case "rr":
        // Many threads finish calls: they count under one lock (uncontended in practice: with
        // the client pinned to one CPU the virtual threads share one carrier).
        loopOnThreads(r, window, "bench-rr-", "request", () -> {
          r.requestResponse(Message.of(payload)).release();
          synchronized (received) {
            received.increment();
          }
        });
        break;
      case "fnf":
        loopOnThreads(r, window, "bench-fnf-", "fire-and-forget",
            () -> r.fireAndForget(Message.of(payload)));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception {
    ByteBuf payload = payload(size);
    BlockingRequester r = connect(port);
    boolean stream = interaction.equals("stream24");
    for (int i = 0; i < concurrency; i++) {
      threads(r, "bench-latency-", i).newThread(() -> {
        try {
          while (true) {
            long start = System.nanoTime();
            if (stream) {
              try (BlockingStream s = r.requestStream(stream24Request(), 64)) {
                while (s.hasNext()) {
                  s.next().release();
                }
              }
            } else {
              r.requestResponse(Message.of(payload)).release();
            }
            sink.record(System.nanoTime() - start);
          }
        } catch (RuntimeException e) {
          failed(stream ? "stream" : "request", e);
        }
      }).start();
    }
  }

  /** Starts a virtual thread that opens a stream and counts its messages until it ends or fails. */
  private static void countOnThread(
      ThreadFactory f, String what, Supplier<BlockingStream> open, Counter received) {
    f.newThread(() -> {
      try (BlockingStream s = open.get()) {
        while (s.hasNext()) {
          count(s.next(), received);
        }
      } catch (RuntimeException e) {
        failed(what, e);
      }
    }).start();
  }

  /** Starts {@code n} virtual threads, each running {@code call} until it throws. */
  private void loopOnThreads(BlockingRequester r, int n, String name, String what, Runnable call) {
    for (int i = 0; i < n; i++) {
      threads(r, name, i).newThread(() -> {
        try {
          while (true) {
            call.run();
          }
        } catch (RuntimeException e) {
          failed(what, e);
        }
      }).start();
    }
  }
}
