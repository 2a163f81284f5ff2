package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.core.SluiceServer;
import io.sluice.internal.ResumableSession;
import io.sluice.test.CutProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proof of resumption over TCP: a loopback proxy cuts the connection {@code CUTS} times, at
 * random frame boundaries and in the middle of frames, while a request-stream (server to client)
 * and a request-channel (both directions) of {@code MESSAGES} messages run; every message arrives
 * exactly once and in order, and neither side's store ever goes past its bound.
 *
 * <p>CI runs {@value #CI_MESSAGES} messages (PARANOID leak detection tracks every buffer on a
 * shared 2-core machine); the full run is {@code -Dsluice.resume.messages=1000000}, see
 * docs/guide/resumption.md.
 */
class ResumeCutProxyTest {
  static final int CI_MESSAGES = 50_000;
  static final int MESSAGES = Integer.getInteger("sluice.resume.messages", CI_MESSAGES);
  static final int CUTS = Integer.getInteger("sluice.resume.cuts", 100);
  private static final long WAIT = 120;
  private static final long STORE = Resumption.MIN_STORE_BYTES;

  private SluiceServer server;
  private CutProxy proxy;
  private Requester client;
  private final AtomicInteger resumed = new AtomicInteger();
  private final AtomicReference<Throwable> failed = new AtomicReference<>();

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.close();
      client.onClose().handle((v, e) -> null).get(WAIT, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.stop(Duration.ofSeconds(5)).get(WAIT, TimeUnit.SECONDS);
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  private Resumption resumption() {
    return Resumption.builder()
        .sessionTimeout(Duration.ofSeconds(60))
        .maxStoreBytes(STORE)
        .backoff(Duration.ofMillis(2), Duration.ofMillis(50))
        .listener(
            new Resumption.Listener() {
              @Override
              public void resumed(int count) {
                resumed.incrementAndGet();
              }

              @Override
              public void resumeFailed(Throwable cause) {
                failed.set(cause);
              }
            })
        .build();
  }

  private void start(Responder responder) throws Exception {
    Resumption r = resumption();
    server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.builder().resumption(r).build(),
                (setup, requester) -> responder)
            .get(WAIT, TimeUnit.SECONDS);
    proxy = new CutProxy((InetSocketAddress) server.address());
    client =
        Connections.connect(
                TcpClientTransport.create("127.0.0.1", proxy.port()),
                ConnectionOptions.builder().build(),
                ClientSetup.defaults().resumable(r),
                x -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
  }

  /** Cuts the link CUTS times, spread over the run as {@code progress} (0..MESSAGES) advances. */
  private void cutWhileRunning(LongSupplier progress, CompletableFuture<?> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT * 4);
    for (int cut = 1; cut <= CUTS && !done.isDone() && System.nanoTime() < deadline; cut++) {
      long at = (long) MESSAGES * cut / (CUTS + 1);
      while (progress.getAsLong() < at && !done.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      CutProxy.Mode mode =
          ThreadLocalRandom.current().nextBoolean() ? CutProxy.Mode.MID_FRAME : CutProxy.Mode.FRAME_BOUNDARY;
      // Cut the session's live connection, then wait for the session to resume before the next.
      int before = resumed.get();
      while (!proxy.cut(mode, 100) && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      while (resumed.get() == before && !done.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
    }
  }

  @Test
  void aRequestStreamSurvivesEveryCutExactlyOnceInOrder() throws Exception {
    start(new Sequence(MESSAGES));
    Receiver rx = new Receiver();
    client.requestStream(Message.utf8("go"), Long.MAX_VALUE, rx);
    cutWhileRunning(rx.count::get, rx.done);
    assertThat(rx.done.get(WAIT * 4, TimeUnit.SECONDS)).isNull();
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(rx.count.get()).isEqualTo(MESSAGES);
    assertThat(failed.get()).isNull();
    assertThat(resumed.get()).isGreaterThan(0);
    assertThat(proxy.cutsAtBoundary() + proxy.cutsMidFrame()).isGreaterThanOrEqualTo(Math.min(CUTS, resumed.get()));
    assertThat(ResumableSession.storeHighWater(client)).isLessThanOrEqualTo(STORE);
    assertThat(server.resumeSessions().storeHighWater()).isLessThanOrEqualTo(STORE).isPositive();
  }

  @Test
  void aRequestChannelSurvivesEveryCutBothWays() throws Exception {
    Sequence responder = new Sequence(MESSAGES);
    start(responder);
    Receiver rx = new Receiver();
    AtomicLong sent = new AtomicLong(1);
    AtomicReference<StreamHandle> handle = new AtomicReference<>();
    CompletableFuture<StreamHandle> ready = new CompletableFuture<>();
    StreamListener l =
        new StreamListener() {
          @Override
          public void onNext(Message m) {
            rx.onNext(m);
          }

          @Override
          public void onComplete() {
            rx.onComplete();
          }

          @Override
          public void onError(Throwable cause) {
            rx.onError(cause);
          }

          @Override
          public void onRequest(long n) {
            StreamHandle h = ready.join();
            for (long i = 0; i < n && sent.get() < MESSAGES; i++) {
              long k = sent.getAndIncrement();
              if (k == MESSAGES - 1) {
                h.nextAndComplete(Message.utf8(h.alloc(), Long.toString(k)));
              } else {
                h.next(Message.utf8(h.alloc(), Long.toString(k)));
              }
            }
          }
        };
    handle.set(client.requestChannel(Message.utf8("0"), MESSAGES == 1, Long.MAX_VALUE, l));
    ready.complete(handle.get());
    cutWhileRunning(() -> Math.min(rx.count.get(), responder.inbound.count.get()), rx.done);
    assertThat(rx.done.get(WAIT * 4, TimeUnit.SECONDS)).isNull();
    assertThat(responder.inbound.done.get(WAIT, TimeUnit.SECONDS)).isNull();
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(responder.inbound.outOfOrder.get()).isNull();
    assertThat(rx.count.get()).isEqualTo(MESSAGES);
    assertThat(responder.inbound.count.get()).isEqualTo(MESSAGES);
    assertThat(failed.get()).isNull();
    assertThat(resumed.get()).isGreaterThan(0);
    assertThat(ResumableSession.storeHighWater(client)).isLessThanOrEqualTo(STORE).isPositive();
    assertThat(server.resumeSessions().storeHighWater()).isLessThanOrEqualTo(STORE).isPositive();
  }

  /**
   * Emits "0", "1", ... on demand, completing after {@code total}; a channel's inbound messages
   * (the first one included) are checked by {@link #inbound}.
   */
  static final class Sequence implements Responder {
    final long total;
    final Receiver inbound = new Receiver();

    Sequence(long total) {
      this.total = total;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle h) {
      request.release();
      return producer(h, null);
    }

    @Override
    public StreamListener requestChannel(Message first, boolean complete, StreamHandle h) {
      inbound.onNext(first);
      if (complete) {
        inbound.onComplete();
      }
      h.request(Long.MAX_VALUE); // the client's messages: paced by the transport (and the store)
      return producer(h, inbound);
    }

    private StreamListener producer(StreamHandle h, Receiver in) {
      AtomicLong next = new AtomicLong();
      return new StreamListener() {
        @Override
        public void onNext(Message m) {
          if (in != null) {
            in.onNext(m);
          } else {
            m.release();
          }
        }

        @Override
        public void onComplete() {
          if (in != null) {
            in.onComplete();
          }
        }

        @Override
        public void onError(Throwable cause) {
          if (in != null) {
            in.onError(cause);
          }
        }

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
