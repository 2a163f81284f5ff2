package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import java.time.Duration;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code sluice-reactor} end to end: {@link SluiceServer} with a {@link ReactorResponder},
 * {@link SluiceClient} and {@link ReactorRequester} ({@code Mono}/{@code Flux}), written as the
 * README shows.
 */
public final class ReactorImpl extends FlavorImpl {
  private static final Duration CONNECT = Duration.ofSeconds(10);

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) {
    ByteBuf payload = payload(size);
    return port(
        SluiceServer.builder(serverTransport())
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Void> fireAndForget(Message request) {
                    request.release();
                    fnfReceived.increment();
                    return Mono.empty();
                  }

                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    request.release();
                    return Mono.just(Message.of(payload));
                  }

                  @Override
                  public Flux<Message> requestStream(Message request) {
                    long n = streamLength(request);
                    Flux<Message> all = Flux.generate(sink -> sink.next(Message.of(payload)));
                    return n == Long.MAX_VALUE ? all : all.take(n, true);
                  }

                  @Override
                  public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
                    return rest.startWith(first);
                  }
                })
            .bind()
            .block(CONNECT));
  }

  private ReactorRequester connect(int port) {
    ReactorRequester r = SluiceClient.builder(clientTransport(port)).connect().block(CONNECT);
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    ByteBuf payload = payload(size);
    ReactorRequester r = connect(port);
    switch (interaction) {
      case "stream":
        r.requestStream(Message.of(payload)).subscribe(new Count(received));
        break;
      case "channel":
        r.requestChannel(Flux.<Message>generate(sink -> sink.next(Message.of(payload))))
            .subscribe(new Count(received));
        break;
      case "rr":
        closedLoop(r.unwrap().executor(), window, done ->
            r.requestResponse(Message.of(payload)).subscribe(
                m -> count(m, received), e -> failed("request", e), done));
        break;
      case "fnf":
        fnfLoop(r.unwrap().executor(), window, sent ->
            r.fireAndForget(Message.of(payload)).subscribe(
                null, e -> sent.run(), sent));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    ByteBuf payload = payload(size);
    ReactorRequester r = connect(port);
    Op op =
        interaction.equals("stream24")
            ? done -> r.requestStream(stream24Request()).subscribe(
                Message::release, e -> failed("stream", e), done)
            : done -> r.requestResponse(Message.of(payload)).subscribe(
                Message::release, e -> failed("request", e), done);
    timedLoop(r.unwrap().executor(), concurrency, op, sink);
  }

  /** Unbounded demand; counts and releases. */
  private static final class Count extends BaseSubscriber<Message> {
    private final Counter received;

    Count(Counter received) {
      this.received = received;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(Message m) {
      count(m, received);
    }

    @Override
    protected void hookOnError(Throwable cause) {
      failed("stream", cause);
    }
  }
}
