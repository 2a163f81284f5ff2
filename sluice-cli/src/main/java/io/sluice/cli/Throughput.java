package io.sluice.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A server and a client in one JVM on 127.0.0.1, each on its own event loop thread, counting
 * messages the client receives per second. Used by {@code ./sluice demo} (request-stream) and
 * {@code ./sluice bench}. Bounded: it stops after the given seconds.
 */
final class Throughput {
  enum Interaction {
    STREAM,
    RESPONSE
  }

  private final Interaction interaction;
  private final String transport;
  private final int payloadSize;
  private final int inFlight;
  private final ConnectionOptions options;
  private IoMode io = IoMode.AUTO;
  private boolean tls;
  private boolean traced;

  Throughput(
      Interaction interaction,
      String transport,
      int payloadSize,
      int inFlight,
      ConnectionOptions options) {
    this.interaction = interaction;
    this.transport = transport;
    this.payloadSize = payloadSize;
    this.inFlight = inFlight;
    this.options = options;
  }

  /** Runs TCP, unix sockets or WebSocket on {@code io}'s engine (default {@link IoMode#AUTO}). */
  Throughput withIo(IoMode io) {
    this.io = io;
    return this;
  }

  /** Runs TCP, unix sockets or WebSocket with TLS (a self-signed certificate the client trusts). */
  Throughput withTls(boolean tls) {
    this.tls = tls;
    return this;
  }

  /**
   * Traces the stream when the OTEL_* variables ask for it ({@link RsocketTracing}: one span per
   * request on each side, none per message); without them, or without this call, the server and
   * client are the untraced ones themselves.
   */
  Throughput withTracing(boolean traced) {
    this.traced = traced;
    return this;
  }

  /**
   * Runs for {@code warmupSeconds + seconds}, printing {@code received messages: N} each second
   * (warm-up seconds are marked), and returns the per-second counts after warm-up.
   */
  List<Long> run(int warmupSeconds, int seconds, PrintStream out) throws InterruptedException {
    // The payload never changes, so every message shares one unreleasable buffer: the encoder reads
    // it without moving its indexes, and the benchmark measures Sluice, not the allocator.
    ByteBuf payloadOwner = Unpooled.directBuffer(payloadSize).writeZero(payloadSize);
    ByteBuf payload = Unpooled.unreleasableBuffer(payloadOwner);
    ReactorResponder responder =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestStream(Message request) {
            request.release();
            return Flux.generate(sink -> sink.next(Message.of(payload)));
          }

          @Override
          public Mono<Message> requestResponse(Message request) {
            request.release();
            return Mono.just(Message.of(payload));
          }
        };
    EventLoopGroup serverLoop = null;
    EventLoopGroup clientLoop = null;
    ServerTransport serverTransport;
    Endpoints.Pair pair = null;
    String localName = "bench-" + System.nanoTime();
    if (transport.equals("local")) {
      if (tls) {
        throw new Args.UsageException("--tls is for tcp, uds, ws and h2, not the in-JVM transport");
      }
      serverTransport = LocalTransport.server(localName);
    } else {
      Endpoints.Kind kind = Endpoints.Kind.parse(transport);
      serverLoop = EventLoops.newGroup(1, "sluice-server", io);
      clientLoop = EventLoops.newGroup(1, "sluice-client", io);
      pair = new Endpoints.Pair(kind, tls, serverLoop, clientLoop);
      serverTransport = pair.server;
    }
    // The server side of each connection, so that the end waits for it to close before the
    // loops stop (frames still queued in a channel the loop never closed would leak).
    List<CompletableFuture<Void>> serverSides = new CopyOnWriteArrayList<>();
    ServerTransport.Bound server =
        SluiceServer.builder(serverTransport)
            .options(options)
            .acceptor(
                (setup, serverSide) -> {
                  serverSides.add(serverSide.unwrap().onClose());
                  return traced ? RsocketTracing.serve(responder, serverSide.unwrap()) : responder;
                })
            .bind()
            .block(Duration.ofSeconds(10));
    ClientTransport clientTransport =
        pair == null ? LocalTransport.client(localName) : pair.client(server);
    ReactorRequester requester =
        traced(SluiceClient.builder(clientTransport).options(options).connect().block(Duration.ofSeconds(10)));
    AtomicLong received = new AtomicLong();
    Runnable stop;
    if (interaction == Interaction.STREAM) {
      StreamCounter counter = new StreamCounter(received);
      requester.requestStream(Message.empty()).subscribe(counter);
      stop = counter::dispose;
    } else {
      Pipeline pipeline = new Pipeline(requester, received, payload);
      requester.unwrap().executor().execute(pipeline::start);
      stop = pipeline::stop;
    }
    List<Long> samples = new ArrayList<>();
    long last = 0;
    long next = System.nanoTime();
    try {
      for (int s = 0; s < warmupSeconds + seconds; s++) {
        next += 1_000_000_000L;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        }
        long now = received.get();
        long delta = now - last;
        last = now;
        boolean warm = s < warmupSeconds;
        out.println("received messages: " + delta + (warm ? " (warm-up)" : ""));
        out.flush();
        if (!warm) {
          samples.add(delta);
        }
      }
    } finally {
      stop.run();
      requester.dispose();
      server.close();
      // Both ends closed (and their queued frames released) while the loops still run.
      awaitQuietly(requester.unwrap().onClose());
      serverSides.forEach(Throughput::awaitQuietly);
      if (serverLoop != null) {
        serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
      }
      if (clientLoop != null) {
        clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
      }
      payloadOwner.release();
    }
    return samples;
  }

  /** {@code requester} itself, or traced when {@link #withTracing} and the environment ask. */
  private ReactorRequester traced(ReactorRequester requester) {
    if (!traced) {
      return requester;
    }
    io.sluice.Requester t = RsocketTracing.call(requester.unwrap());
    return t == requester.unwrap() ? requester : new ReactorRequester(t);
  }

  private static void awaitQuietly(CompletableFuture<Void> closed) {
    try {
      closed.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // closed with an error, or not in time: the loops' shutdown closes what is left
    }
  }

  static long median(List<Long> samples) {
    if (samples.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** Counts a stream's messages; asks for everything once. Runs on the client's loop. */
  private static final class StreamCounter extends BaseSubscriber<Message> {
    private final AtomicLong received;
    private long count;

    StreamCounter(AtomicLong received) {
      this.received = received;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(Message m) {
      m.release();
      received.lazySet(++count);
    }
  }

  /** Keeps a fixed number of request-responses in flight, all issued on the client's loop. */
  private final class Pipeline {
    private final ReactorRequester requester;
    private final AtomicLong received;
    private final ByteBuf payload;
    private long count;
    private volatile boolean stopped;

    Pipeline(ReactorRequester requester, AtomicLong received, ByteBuf payload) {
      this.requester = requester;
      this.received = received;
      this.payload = payload;
    }

    void start() {
      for (int i = 0; i < inFlight; i++) {
        send();
      }
    }

    void stop() {
      stopped = true;
    }

    private void send() {
      if (stopped) {
        return;
      }
      requester
          .requestResponse(Message.of(payload))
          .subscribe(
              m -> {
                m.release();
                received.lazySet(++count);
                send();
              },
              e -> {
                if (!stopped) {
                  System.err.println("request failed: " + e);
                }
              });
    }
  }
}
