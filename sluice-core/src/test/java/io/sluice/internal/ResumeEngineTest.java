package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.exceptions.RejectedResumeException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Resumption end to end over in-memory pipes on one loop: a client session and a server gate, the
 * client's transport cut while a stream runs, the session resumed over a new pipe.
 */
class ResumeEngineTest {
  private final DefaultEventExecutor loop = new DefaultEventExecutor();
  private final List<PipeTransport> clientEnds = new CopyOnWriteArrayList<>();
  private final List<PipeTransport> serverEnds = new CopyOnWriteArrayList<>();
  private final AtomicInteger resumed = new AtomicInteger();
  private final AtomicInteger disconnected = new AtomicInteger();
  private final AtomicReference<Throwable> resumeFailed = new AtomicReference<>();
  private ResumeSessions sessions;

  @AfterEach
  void stop() throws InterruptedException {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  private Resumption resumption(long storeBytes) {
    return Resumption.builder()
        .sessionTimeout(Duration.ofSeconds(30))
        .maxStoreBytes(storeBytes)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .listener(
            new Resumption.Listener() {
              @Override
              public void disconnected(Throwable cause) {
                disconnected.incrementAndGet();
              }

              @Override
              public void resumed(int count) {
                resumed.incrementAndGet();
              }

              @Override
              public void resumeFailed(Throwable cause) {
                resumeFailed.set(cause);
              }
            })
        .build();
  }

  private ClientTransport pipes(ConnectionOptions serverOptions, Responder responder) {
    sessions = new ResumeSessions(serverOptions.resumption());
    return () -> {
      PipeTransport[] p = PipeTransport.pair(loop);
      loop.execute(
          () -> ResumeGate.serve(p[0], serverOptions, (setup, r) -> responder, sessions, c -> {}));
      serverEnds.add(p[0]);
      clientEnds.add(p[1]);
      return CompletableFuture.completedFuture((DuplexTransport) p[1]);
    };
  }

  private Requester connect(ClientTransport t, Resumption r) {
    return Loop.await(
        Connections.connect(
            t, ConnectionOptions.builder().build(), ClientSetup.defaults().resumable(r), x -> new Responder() {}));
  }

  @Test
  void aStreamSurvivesCutsExactlyOnceInOrder() {
    int total = 20_000;
    Resumption r = resumption(Resumption.MIN_STORE_BYTES);
    ConnectionOptions server = ConnectionOptions.builder().resumption(r).build();
    Requester client = connect(pipes(server, new Sequence(total)), r);
    Receiver rx = new Receiver();
    client.requestStream(Message.utf8("go"), Long.MAX_VALUE, rx);
    // Cut the client's current transport 20 times while the stream runs.
    for (int cut = 0; cut < 20 && !rx.done.isDone(); cut++) {
      Loop.run(
          loop,
          () -> {
            PipeTransport last = clientEnds.get(clientEnds.size() - 1);
            last.close();
          });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      int before = cut + 1;
      while (resumed.get() < before && !rx.done.isDone() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
        Loop.settle(loop);
      }
    }
    assertThat(Loop.awaitOutcome(rx.done)).isNull();
    assertThat(rx.count.get()).isEqualTo(total);
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(resumed.get()).isGreaterThan(0);
    assertThat(resumeFailed.get()).isNull();
    // A graceful close ends the server's session too (a cut would keep it for the timeout).
    client.close();
    assertThat(Loop.awaitOutcome(client.onClose())).isNull();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sessions.size() > 0 && System.nanoTime() < deadline) {
      Loop.settle(loop);
    }
    assertThat(sessions.size()).isZero();
    assertThat(sessions.storeBytes()).isZero();
  }

  @Test
  void anUnknownTokenIsRejectedAndTheClientGivesUp() {
    Resumption r = resumption(Resumption.MIN_STORE_BYTES);
    ConnectionOptions server = ConnectionOptions.builder().resumption(r).build();
    Requester client = connect(pipes(server, new Sequence(10)), r);
    // The server's session ends (as on a restarted server): the client's RESUME names nothing.
    Loop.run(
        loop,
        () ->
            sessions
                .find(((ResumableSession) ((SluiceConnection) client).transport).token)
                .conn
                .dispose());
    Receiver rx = new Receiver();
    Throwable closed = Loop.awaitOutcome(client.onClose());
    assertThat(closed).isInstanceOf(RejectedResumeException.class);
    assertThat(resumeFailed.get()).isInstanceOf(RejectedResumeException.class);
    assertThat(rx.count.get()).isZero();
  }

  /**
   * A server that answers RESUME with ERROR[REJECTED_RESUME] (any text but the rate bound's "try
   * again later") ends the client's resume loop: one attempt, one resumeFailed, the connection
   * closed with the refusal; no further reconnects however long one waits.
   */
  @Test
  void aRejectedResumeEndsTheResumeLoopWithResumeFailed() throws Exception {
    Resumption r = resumption(Resumption.MIN_STORE_BYTES);
    ConnectionOptions server = ConnectionOptions.builder().resumption(r).build();
    ClientTransport first = pipes(server, new Sequence(10));
    AtomicInteger connects = new AtomicInteger();
    AtomicInteger resumesSeen = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    Resumption counting =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
            .listener(
                new Resumption.Listener() {
                  @Override
                  public void resumeFailed(Throwable cause) {
                    failures.incrementAndGet();
                    resumeFailed.set(cause);
                  }
                })
            .build();
    ClientTransport t =
        () -> {
          if (connects.getAndIncrement() == 0) {
            return first.connect();
          }
          // A server that knows no session: every RESUME is refused.
          PipeTransport[] p = PipeTransport.pair(loop);
          loop.execute(
              () ->
                  p[0].start(
                      new RawPeer() {
                        @Override
                        public void onFrame(ByteBuf f) {
                          if (Frames.type(f) == FrameType.RESUME) {
                            resumesSeen.incrementAndGet();
                          }
                          ByteBuf err = PooledByteBufAllocator.DEFAULT.buffer();
                          Frames.writeError(err, 0, ErrorCode.REJECTED_RESUME, "unknown session");
                          p[0].write(err);
                          p[0].close();
                        }
                      }));
          clientEnds.add(p[1]);
          return CompletableFuture.completedFuture((DuplexTransport) p[1]);
        };
    Requester client = connect(t, counting);
    Loop.run(loop, () -> clientEnds.get(0).close());
    Throwable closed = Loop.awaitOutcome(client.onClose());
    assertThat(closed).isInstanceOf(RejectedResumeException.class).hasMessageContaining("unknown session");
    // Many backoff periods (1-5 ms) later: still the one attempt.
    for (int i = 0; i < 20; i++) {
      Thread.sleep(25);
      Loop.settle(loop);
    }
    assertThat(connects.get()).isEqualTo(2);
    assertThat(resumesSeen.get()).isEqualTo(1);
    assertThat(failures.get()).isEqualTo(1);
    assertThat(resumeFailed.get()).isInstanceOf(RejectedResumeException.class);
  }

  /**
   * Positions count the frames the spec counts, and only those, when the engine's batches mix them
   * with stream-0 frames (METADATA_PUSH, KEEPALIVE) and with the head of a large frame: the
   * client's sent position (its store's end), the bytes of its counted frames and the server's
   * received position agree, both ways. The engine's writer tells the session which batches hold
   * counted frames only (the session then stores them without reading each frame): a batch it
   * wrongly called all counted would put the stream-0 frames' bytes into the client's position.
   */
  @Test
  void positionsCountOnlyCountedFramesWhenABatchMixesThemWithStreamZeroFrames() {
    Resumption r = resumption(Resumption.MIN_STORE_BYTES);
    ConnectionOptions server = ConnectionOptions.builder().resumption(r).build();
    // Streams of one message: each request-stream below completes at its first answer, so the
    // graceful close at the end has no live stream to wait for (it would wait its drain timeout).
    Requester client = connect(pipes(server, new Sequence(1)), r);
    Loop.settle(loop);
    ResumableSession clientSession =
        (ResumableSession) ((SluiceConnection) client).transport;
    ResumableSession serverSession = Loop.call(loop, () -> sessions.find(clientSession.token));
    long before = Loop.call(loop, () -> clientSession.store.endPosition());
    long batchesBefore = Loop.call(loop, () -> clientSession.countedBatches);
    String big = "x".repeat(3_000); // above the writer's copy threshold: head, then its payload
    long counted =
        Frames.requestHeaderSize(FrameType.REQUEST_STREAM) + 1
            + Frames.requestHeaderSize(FrameType.REQUEST_FNF) + 2
            + Frames.requestHeaderSize(FrameType.REQUEST_STREAM) + 1
            + Frames.requestHeaderSize(FrameType.REQUEST_FNF) + big.length()
            + Frames.requestHeaderSize(FrameType.REQUEST_FNF) + 3;
    // One loop turn: one batch, stream-0 frames between counted ones.
    Loop.run(
        loop,
        () -> {
          client.requestStream(Message.utf8("a"), 1, new Receiver());
          client.metadataPush(
              Message.utf8(PooledByteBufAllocator.DEFAULT, "push", ""), new Receiver());
          client.fireAndForget(Message.utf8("ff"), new Receiver());
          ((SluiceConnection) client).out.writeKeepAlive(true, null);
          client.requestStream(Message.utf8("b"), 1, new Receiver());
        });
    Loop.settle(loop);
    // Another: a batch ending in a large frame's head (its payload follows as its own write),
    // then a batch of counted frames only.
    Loop.run(
        loop,
        () -> {
          client.fireAndForget(Message.utf8(big), new Receiver());
          client.fireAndForget(Message.utf8("end"), new Receiver());
        });
    Loop.settle(loop);
    long sent = Loop.call(loop, () -> clientSession.store.endPosition());
    assertThat(sent - before).isEqualTo(counted);
    assertThat(Loop.call(loop, serverSession::receivedPosition)).isEqualTo(sent);
    // The server's answers (a PAYLOAD per stream, beside its KEEPALIVE answer) count the same way.
    assertThat(Loop.call(loop, clientSession::receivedPosition))
        .isEqualTo(Loop.call(loop, () -> serverSession.store.endPosition()));
    assertThat(Loop.call(loop, () -> clientSession.countedBatches))
        .as("the batch after the large frame holds counted frames only")
        .isGreaterThan(batchesBefore);
    client.close(); // graceful: the server's session ends too, its store released
    assertThat(Loop.awaitOutcome(client.onClose())).isNull();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sessions.size() > 0 && System.nanoTime() < deadline) {
      Loop.settle(loop);
    }
    assertThat(sessions.size()).isZero();
  }

  /** Emits "0", "1", ... on demand, completing after {@code total}. */
  static final class Sequence implements Responder {
    final long total;

    Sequence(long total) {
      this.total = total;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle h) {
      request.release();
      AtomicLong next = new AtomicLong();
      return new StreamListener() {
        @Override
        public void onNext(Message m) {
          m.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && next.get() < total; i++) {
            long k = next.getAndIncrement();
            if (k == total - 1) {
              h.nextAndComplete(Message.utf8(h.alloc(), Long.toString(k)));
            } else {
              h.next(Message.utf8(h.alloc(), Long.toString(k)));
            }
          }
        }
      };
    }
  }

  /** Checks that "0", "1", ... arrive once each, in order. */
  static final class Receiver implements StreamListener {
    final AtomicLong count = new AtomicLong();
    final AtomicReference<String> outOfOrder = new AtomicReference<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onNext(Message m) {
      String d = m.dataUtf8();
      m.release();
      long expected = count.getAndIncrement();
      if (!d.equals(Long.toString(expected))) {
        outOfOrder.compareAndSet(null, "expected " + expected + ", got " + d);
      }
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }

    @Override
    public void onError(Throwable cause) {
      done.completeExceptionally(cause);
    }
  }
}
