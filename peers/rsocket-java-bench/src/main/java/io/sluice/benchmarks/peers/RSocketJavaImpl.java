package io.sluice.benchmarks.peers;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.transport.netty.server.WebsocketServerTransport;
import io.rsocket.util.DefaultPayload;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * rsocket-java 1.1.5 over TCP (or its WebSocket transport, {@code rsocket-java-ws}) as its
 * documentation recommends for throughput: the zero-copy payload decoder on both sides,
 * reactor-netty's default loop resources, and one immutable {@link DefaultPayload} shared by every
 * message (its release is a no-op), as Sluice shares one buffer.
 */
final class RSocketJavaImpl implements Impl {
  private final boolean websocket;

  RSocketJavaImpl(boolean websocket) {
    this.websocket = websocket;
  }

  @Override
  public String serverLoopPrefix() {
    return websocket ? "reactor-http" : "reactor-tcp";
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) {
    Payload payload = DefaultPayload.create(new byte[size]);
    RSocket handler =
        new RSocket() {
          @Override
          public Mono<Void> fireAndForget(Payload p) {
            p.release();
            fnfReceived.increment();
            return Mono.empty();
          }

          @Override
          public Mono<Payload> requestResponse(Payload p) {
            p.release();
            return Mono.just(payload);
          }

          @Override
          public Flux<Payload> requestStream(Payload p) {
            boolean short24 = p.data().readableBytes() == 1 && p.data().getByte(p.data().readerIndex()) == Spec.STREAM24;
            p.release();
            if (short24) {
              return Flux.range(0, Spec.STREAM24).map(i -> payload);
            }
            return Flux.generate(sink -> sink.next(payload));
          }

          @Override
          public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            // Echo, asking the requester for 512 at a time (REQUEST_N), as Sluice's window does.
            return Flux.from(payloads).limitRate(512);
          }
        };
    RSocketServer server =
        RSocketServer.create((setup, sendingSocket) -> Mono.just(handler))
            .payloadDecoder(PayloadDecoder.ZERO_COPY);
    return (websocket
            ? server.bind(WebsocketServerTransport.create("127.0.0.1", 0)).block()
            : server.bind(TcpServerTransport.create("127.0.0.1", 0)).block())
        .address()
        .getPort();
  }

  private RSocket connect(int port) {
    RSocketConnector connector = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY);
    return websocket
        ? connector.connect(WebsocketClientTransport.create("127.0.0.1", port)).block()
        : connector.connect(TcpClientTransport.create("127.0.0.1", port)).block();
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    Payload payload = DefaultPayload.create(new byte[size]);
    RSocket rs = connect(port);
    switch (interaction) {
      case "stream":
        // limitRate: REQUEST_N of `window` at a time. rsocket-java has no outbound window of its
        // own; with an unbounded request its responder emits without end on the event loop.
        rs.requestStream(payload).limitRate(window).subscribe(new Counting(received));
        break;
      case "channel":
        rs.requestChannel(Flux.<Payload>generate(s -> s.next(payload)))
            .limitRate(window)
            .subscribe(new Counting(received));
        break;
      case "rr":
        Flux.range(0, Integer.MAX_VALUE)
            .flatMap(i -> rs.requestResponse(payload), window)
            .subscribe(new Counting(received));
        break;
      case "fnf":
        Flux.range(0, Integer.MAX_VALUE).flatMap(i -> rs.fireAndForget(payload), window).subscribe();
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    Payload payload = DefaultPayload.create(new byte[size]);
    Payload stream24 = DefaultPayload.create(new byte[] {(byte) Spec.STREAM24});
    RSocket rs = connect(port);
    boolean stream = interaction.equals("stream24");
    for (int i = 0; i < concurrency; i++) {
      new Runnable() {
        long started;

        @Override
        public void run() {
          started = System.nanoTime();
          Flux<Payload> op = stream ? rs.requestStream(stream24) : rs.requestResponse(payload).flux();
          op.subscribe(Payload::release, e -> System.err.println("operation failed: " + e), () -> {
            sink.record(System.nanoTime() - started);
            run();
          });
        }
      }.run();
    }
  }

  /** Counts and releases every payload; asks for everything at once. */
  static final class Counting extends BaseSubscriber<Payload> {
    private final Counter received;

    Counting(Counter received) {
      this.received = received;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(Payload p) {
      p.release();
      received.increment();
    }

    @Override
    protected void hookOnError(Throwable t) {
      System.err.println("rsocket-java stream failed: " + t);
    }
  }
}
