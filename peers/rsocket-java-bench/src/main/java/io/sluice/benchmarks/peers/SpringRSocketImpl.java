package io.sluice.benchmarks.peers;

import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import java.util.List;
import org.reactivestreams.Subscription;
import org.springframework.http.codec.cbor.Jackson2CborDecoder;
import org.springframework.http.codec.cbor.Jackson2CborEncoder;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.messaging.rsocket.RSocketStrategies;
import org.springframework.messaging.rsocket.annotation.support.RSocketMessageHandler;
import org.springframework.stereotype.Controller;
import org.springframework.util.MimeTypeUtils;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Spring's RSocket support (spring-messaging 6.2 on rsocket-java 1.1.5) the way Spring Boot sets it
 * up: {@code @MessageMapping} handlers in a {@code @Controller}, an {@link RSocketRequester} with
 * routing metadata, CBOR data through Jackson, and the zero-copy payload decoder that Spring's
 * reference recommends for performance. Messages are a small object with one {@code byte[]} field.
 */
final class SpringRSocketImpl implements Impl {
  /** The CBOR-encoded message. */
  public static final class Msg {
    public byte[] data;

    public Msg() {}

    Msg(byte[] data) {
      this.data = data;
    }
  }

  private static RSocketStrategies strategies() {
    return RSocketStrategies.builder()
        .encoders(e -> e.add(new Jackson2CborEncoder()))
        .decoders(d -> d.add(new Jackson2CborDecoder()))
        .build();
  }

  /** The server's handlers. */
  @Controller
  public static final class BenchController {
    private final Msg msg;
    private final Counter fnfReceived;

    BenchController(Msg msg, Counter fnfReceived) {
      this.msg = msg;
      this.fnfReceived = fnfReceived;
    }

    @MessageMapping("rr")
    public Mono<Msg> rr(Msg request) {
      return Mono.just(msg);
    }

    @MessageMapping("stream")
    public Flux<Msg> stream(Msg request) {
      if (request.data != null && request.data.length == 1 && request.data[0] == Spec.STREAM24) {
        return Flux.range(0, Spec.STREAM24).map(i -> msg);
      }
      return Flux.generate(s -> s.next(msg));
    }

    @MessageMapping("channel")
    public Flux<Msg> channel(Flux<Msg> in) {
      // Echo, asking the requester for 512 at a time (REQUEST_N), as Sluice's window does.
      return in.limitRate(512);
    }

    @MessageMapping("fnf")
    public Mono<Void> fnf(Msg request) {
      fnfReceived.increment();
      return Mono.empty();
    }
  }

  @Override
  public String serverLoopPrefix() {
    return "reactor-tcp";
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    RSocketMessageHandler handler = new RSocketMessageHandler();
    handler.setRSocketStrategies(strategies());
    handler.setDefaultDataMimeType(MimeTypeUtils.parseMimeType("application/cbor"));
    handler.setHandlers(List.of(new BenchController(new Msg(new byte[size]), fnfReceived)));
    handler.afterPropertiesSet();
    CloseableChannel channel =
        RSocketServer.create(handler.responder())
            .payloadDecoder(PayloadDecoder.ZERO_COPY)
            .bind(TcpServerTransport.create("127.0.0.1", 0))
            .block();
    return channel.address().getPort();
  }

  private static RSocketRequester connect(int port) {
    return RSocketRequester.builder()
        .rsocketStrategies(strategies())
        .dataMimeType(MimeTypeUtils.parseMimeType("application/cbor"))
        .rsocketConnector(c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY))
        .tcp("127.0.0.1", port);
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    Msg msg = new Msg(new byte[size]);
    RSocketRequester requester = connect(port);
    switch (interaction) {
      case "stream":
        // limitRate: REQUEST_N of `window` at a time (see RSocketJavaImpl).
        requester
            .route("stream")
            .data(msg)
            .retrieveFlux(Msg.class)
            .limitRate(window)
            .subscribe(new Counting(received));
        break;
      case "channel":
        requester
            .route("channel")
            .data(Flux.<Msg>generate(s -> s.next(msg)), Msg.class)
            .retrieveFlux(Msg.class)
            .limitRate(window)
            .subscribe(new Counting(received));
        break;
      case "rr":
        Flux.range(0, Integer.MAX_VALUE)
            .flatMap(i -> requester.route("rr").data(msg).retrieveMono(Msg.class), window)
            .subscribe(new Counting(received));
        break;
      case "fnf":
        Flux.range(0, Integer.MAX_VALUE)
            .flatMap(i -> requester.route("fnf").data(msg).send(), window)
            .subscribe();
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    Msg msg = new Msg(new byte[size]);
    Msg stream24 = new Msg(new byte[] {(byte) Spec.STREAM24});
    RSocketRequester requester = connect(port);
    boolean stream = interaction.equals("stream24");
    for (int i = 0; i < concurrency; i++) {
      new Runnable() {
        long started;

        @Override
        public void run() {
          started = System.nanoTime();
          Flux<Msg> op =
              stream
                  ? requester.route("stream").data(stream24).retrieveFlux(Msg.class)
                  : requester.route("rr").data(msg).retrieveMono(Msg.class).flux();
          op.subscribe(m -> {}, e -> System.err.println("operation failed: " + e), () -> {
            sink.record(System.nanoTime() - started);
            run();
          });
        }
      }.run();
    }
  }

  private static final class Counting extends BaseSubscriber<Msg> {
    private final Counter received;

    Counting(Counter received) {
      this.received = received;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(Msg m) {
      received.increment();
    }

    @Override
    protected void hookOnError(Throwable t) {
      System.err.println("spring-rsocket stream failed: " + t);
    }
  }
}
