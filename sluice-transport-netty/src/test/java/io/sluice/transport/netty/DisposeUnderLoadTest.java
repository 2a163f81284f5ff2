package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Connections disposed in the middle of endless traffic — a stream flowing as fast as it can, a
 * channel echoing both ways — by either side, from a thread other than the event loop: every
 * message in flight, queued or half-read must be released (the leak detector runs at PARANOID and
 * fails the class on any leak) and both ends must see the connection close. Every message is a
 * pooled direct buffer, so the detector tracks each one.
 */
class DisposeUnderLoadTest {
  private static final long WAIT_SECONDS = 60; // hang guard only (20 s was reached at load 30)
  private static final int SIZE = 100;
  private static final int BEFORE_DISPOSE = 5_000;

  private static Message message() {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(SIZE);
    b.writeZero(SIZE);
    return Message.of(b);
  }

  /** Sends as long as the core grants demand, until cancelled or failed. */
  private static final class Producer implements StreamListener {
    private final StreamHandle stream;
    private volatile boolean stopped;

    Producer(StreamHandle stream) {
      this.stream = stream;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n && !stopped; i++) {
        stream.next(message());
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      stopped = true;
    }

    @Override
    public void onCancel() {
      stopped = true;
    }
  }

  /** Echoes a channel: asks the client for as many messages as it may send back. */
  private static final class Echo implements StreamListener {
    private final StreamHandle channel;
    private Message first; // event loop

    Echo(StreamHandle channel, Message first) {
      this.channel = channel;
      this.first = first;
    }

    @Override
    public void onRequest(long n) {
      long grant = n;
      if (first != null) {
        channel.next(first);
        first = null;
        grant--;
      }
      if (grant > 0) {
        channel.request(grant);
      }
    }

    @Override
    public void onNext(Message message) {
      channel.next(message);
    }

    @Override
    public void onComplete() {
      channel.complete();
    }

    @Override
    public void onError(Throwable cause) {
      if (first != null) {
        first.release();
        first = null;
      }
    }

    @Override
    public void onCancel() {
      onError(null);
    }
  }

  /** Counts and releases what arrives; for a channel it also sends as demand allows. */
  private static final class Consumer implements StreamListener {
    final AtomicLong received = new AtomicLong();
    final CountDownLatch enough = new CountDownLatch(1);
    final CountDownLatch ended = new CountDownLatch(1);
    private StreamHandle handle; // channel only; event loop
    private long early; // demand granted before requestChannel returned; event loop
    private volatile boolean stopped;

    /** On the event loop: starts the channel and sends what was granted meanwhile. */
    void startChannel(Requester requester) {
      handle = requester.requestChannel(message(), false, Long.MAX_VALUE, this);
      long n = early;
      early = 0;
      onRequest(n);
    }

    @Override
    public void onRequest(long n) {
      if (handle == null) {
        early += n;
        return;
      }
      for (long i = 0; i < n && !stopped; i++) {
        handle.next(message());
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
      if (received.incrementAndGet() == BEFORE_DISPOSE) {
        enough.countDown();
      }
    }

    @Override
    public void onComplete() {
      ended.countDown();
    }

    @Override
    public void onError(Throwable cause) {
      stopped = true;
      ended.countDown();
    }

    @Override
    public void onCancel() {
      stopped = true;
      ended.countDown();
    }
  }

  @ParameterizedTest(name = "{0} disposed by the {1}")
  @CsvSource({"stream, client", "stream, server", "channel, client", "channel, server"})
  void everythingInFlightIsReleasedWhenASideDisposesMidStream(String interaction, String side)
      throws Exception {
    CompletableFuture<Requester> serverSide = new CompletableFuture<>();
    Responder responder =
        new Responder() {
          @Override
          public StreamListener requestStream(Message request, StreamHandle stream) {
            request.release();
            return new Producer(stream);
          }

          @Override
          public StreamListener requestChannel(
              Message first, boolean inboundComplete, StreamHandle channel) {
            return new Echo(channel, first);
          }
        };
    ServerTransport.Bound bound =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                (setup, requester) -> {
                  serverSide.complete(requester);
                  return responder;
                })
            .get(WAIT_SECONDS, TimeUnit.SECONDS);
    Requester client = null;
    try {
      int port = ((InetSocketAddress) bound.address()).getPort();
      client =
          Connections.connect(
                  TcpClientTransport.create("127.0.0.1", port),
                  ConnectionOptions.defaults(),
                  ClientSetup.defaults(),
                  r -> new Responder() {})
              .get(WAIT_SECONDS, TimeUnit.SECONDS);
      Consumer consumer = new Consumer();
      Requester c = client;
      c.executor()
          .execute(
              () -> {
                if (interaction.equals("stream")) {
                  c.requestStream(message(), Long.MAX_VALUE, consumer);
                } else {
                  consumer.startChannel(c);
                }
              });
      assertThat(consumer.enough.await(WAIT_SECONDS, TimeUnit.SECONDS))
          .as("%d messages arrived", BEFORE_DISPOSE)
          .isTrue();
      Requester server = serverSide.get(WAIT_SECONDS, TimeUnit.SECONDS);
      // From this (non-loop) thread, while traffic flows both ways.
      (side.equals("client") ? client : server).dispose();
      client.onClose().handle((v, e) -> null).get(WAIT_SECONDS, TimeUnit.SECONDS);
      server.onClose().handle((v, e) -> null).get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(consumer.ended.await(WAIT_SECONDS, TimeUnit.SECONDS))
          .as("the client's stream ended")
          .isTrue();
      assertThat(client.isOpen()).isFalse();
      assertThat(server.isOpen()).isFalse();
    } finally {
      if (client != null) {
        client.dispose();
      }
      bound.close();
    }
  }
}
