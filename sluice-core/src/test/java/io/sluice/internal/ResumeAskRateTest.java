package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A resumable client asks the server for its position (a KEEPALIVE with the respond flag) when its
 * store is half full, and it sends its keepalives, KEEPALIVEs with the respond flag too: a Sluice
 * server counts both against its bound on KEEPALIVEs ({@link
 * ConnectionOptions#maxKeepAlivesPerSecond()}, 16 a second by default). Here the client keeps a
 * 100 ms keepalive and its store is held near full for seconds (a channel of 2 MiB to a server that
 * tells its position only when asked, and one question late, over an always-writable pipe): the
 * server's bound, applied by the raw server as the engine applies it ({@link RateBudget}), must
 * never be exceeded.
 */
class ResumeAskRateTest {
  private final DefaultEventExecutor loop = new DefaultEventExecutor();

  @AfterEach
  void stop() throws InterruptedException {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /**
   * A server that tells its position only when asked, one question behind, and bounds the
   * KEEPALIVEs as a Sluice server does.
   */
  private final class AcksWhenAsked extends RawPeer {
    final PipeTransport end;
    final RateBudget keepAlives =
        new RateBudget(ConnectionOptions.defaults().maxKeepAlivesPerSecond(), loop.ticker());
    final AtomicInteger payloads = new AtomicInteger();
    final AtomicInteger keepAlivesSeen = new AtomicInteger();
    final List<String> overBudget = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> completed = new CompletableFuture<>();
    private long received;
    private long handled;
    private final long started = System.nanoTime();

    AcksWhenAsked(PipeTransport end) {
      this.end = end;
    }

    private void send(ByteBuf f) {
      end.write(f);
      end.flush();
    }

    @Override
    public void onFrame(ByteBuf f) {
      int type = Frames.type(f);
      if (Frames.streamId(f) != 0 && ResumableSession.counted(type)) {
        received += f.readableBytes();
      }
      if (type == FrameType.REQUEST_CHANNEL) {
        payloads.incrementAndGet();
        ByteBuf n = PooledByteBufAllocator.DEFAULT.buffer();
        Frames.writeRequestN(n, Frames.streamId(f), Integer.MAX_VALUE);
        send(n);
      } else if (type == FrameType.PAYLOAD) {
        payloads.incrementAndGet();
        if (Frames.hasFlag(f, Frames.FLAG_COMPLETE)) {
          completed.complete(null);
        }
      } else if (type == FrameType.KEEPALIVE && Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)) {
        keepAlivesSeen.incrementAndGet();
        if (!keepAlives.take()) {
          overBudget.add(
              "KEEPALIVE " + keepAlivesSeen.get() + " at "
                  + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
        }
        // The position of the previous question: a peer that acknowledges what it has handled,
        // one question behind what it has read, so that the client's store stays near full.
        ByteBuf ack = PooledByteBufAllocator.DEFAULT.buffer();
        Frames.writeKeepAlive(ack, false, handled, null);
        send(ack);
        handled = received;
      }
    }
  }

  @Test
  void asksAndA100msKeepaliveStayWithinTheServersKeepaliveBound() throws InterruptedException {
    // A small window: the producer may use a window granted before the store filled, and a whole
    // window must fit in the store beyond its half, or the store refuses a frame.
    int total = 2048;
    int size = 1024;
    PipeTransport[] ends = PipeTransport.pair(loop);
    AcksWhenAsked server = new AcksWhenAsked(ends[0]);
    Loop.run(loop, () -> ends[0].start(server));
    Resumption resumption =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .maxStoreBytes(Resumption.MIN_STORE_BYTES)
            .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
            .build();
    Requester client =
        Loop.await(
            Connections.connect(
                () -> CompletableFuture.completedFuture((DuplexTransport) ends[1]),
                ConnectionOptions.builder()
                    .keepAlive(Duration.ofMillis(100), Duration.ofSeconds(30))
                    .outboundWindow(16)
                    .build(),
                ClientSetup.defaults().resumable(resumption),
                x -> new Responder() {}));
    AtomicReference<StreamHandle> handle = new AtomicReference<>();
    int[] sent = {1};
    StreamListener producer =
        new StreamListener() {
          @Override
          public void onRequest(long n) {
            StreamHandle h = handle.get();
            for (long i = 0; i < n && sent[0] < total; i++) {
              Message m = Message.of(h.alloc().buffer(size).writeZero(size));
              if (++sent[0] == total) {
                h.nextAndComplete(m);
              } else {
                h.next(m);
              }
            }
          }

          @Override
          public void onNext(Message m) {
            m.release();
          }

          @Override
          public void onComplete() {}

          @Override
          public void onError(Throwable cause) {}
        };
    Loop.run(
        loop,
        () ->
            handle.set(
                client.requestChannel(
                    Message.utf8("first"), false, 1, producer)));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Loop.WAIT_SECONDS);
    while (!server.completed.isDone() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    Loop.settle(loop);
    assertThat(server.completed)
        .as("the channel's end reached the server (%s messages, %s KEEPALIVEs, over the bound: %s)",
            server.payloads.get(), server.keepAlivesSeen.get(), server.overBudget)
        .isDone();
    assertThat(server.overBudget)
        .as("KEEPALIVEs past the server's bound of %s a second (%s seen)",
            ConnectionOptions.defaults().maxKeepAlivesPerSecond(), server.keepAlivesSeen.get())
        .isEmpty();
    assertThat(server.payloads.get()).as("messages the server got").isEqualTo(total);
    assertThat(client.isOpen()).isTrue();
    Loop.run(loop, ((SluiceConnection) client)::dispose);
    Loop.settle(loop);
  }
}
