package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.virtualthreads.BlockingChannel;
import io.sluice.virtualthreads.BlockingClient;
import io.sluice.virtualthreads.BlockingRequester;
import io.sluice.virtualthreads.BlockingResponder;
import io.sluice.virtualthreads.BlockingServer;
import io.sluice.virtualthreads.BlockingSink;
import io.sluice.virtualthreads.BlockingStream;
import java.util.function.Supplier;

/**
 * {@code sluice-virtualthreads} end to end: {@link BlockingServer} (each request handled on its own
 * virtual thread, sends waiting for demand) and {@link BlockingClient} with plain blocking calls on
 * virtual threads — {@code window} threads each looping on a blocking request-response, one thread
 * iterating a request-stream with {@code window} messages of prefetch. Built and run only on JDK 21+
 * (this source folder is compiled in the {@code jdk21} profile).
 */
public final class VirtualThreadsImpl extends FlavorImpl {

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    ByteBuf payload = payload(size);
    return port(
        BlockingServer.serve(
            serverTransport(),
            new BlockingResponder() {
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
            }));
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
        countOnThread("bench-stream", "stream", () -> r.requestStream(Message.of(payload), window), received);
        break;
      case "channel":
        BlockingChannel c = r.requestChannel(Message.of(payload), window);
        loopOnThreads(1, "bench-channel-send-", "channel send", () -> c.send(Message.of(payload)));
        countOnThread("bench-channel-read", "channel", c::inbound, received);
        break;
      case "rr":
        // Many threads finish calls: they count under one lock (uncontended in practice: with
        // the client pinned to one CPU the virtual threads share one carrier).
        loopOnThreads(window, "bench-rr-", "request", () -> {
          r.requestResponse(Message.of(payload)).release();
          synchronized (received) {
            received.increment();
          }
        });
        break;
      case "fnf":
        loopOnThreads(window, "bench-fnf-", "fire-and-forget",
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
      Thread.ofVirtual().name("bench-latency-", i).start(() -> {
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
      });
    }
  }

  /** Starts a virtual thread that opens a stream and counts its messages until it ends or fails. */
  private static void countOnThread(
      String name, String what, Supplier<BlockingStream> open, Counter received) {
    Thread.ofVirtual().name(name).start(() -> {
      try (BlockingStream s = open.get()) {
        while (s.hasNext()) {
          count(s.next(), received);
        }
      } catch (RuntimeException e) {
        failed(what, e);
      }
    });
  }

  /** Starts {@code n} virtual threads, each running {@code call} until it throws. */
  private static void loopOnThreads(int n, String name, String what, Runnable call) {
    for (int i = 0; i < n; i++) {
      Thread.ofVirtual().name(name, i).start(() -> {
        try {
          while (true) {
            call.run();
          }
        } catch (RuntimeException e) {
          failed(what, e);
        }
      });
    }
  }
}
