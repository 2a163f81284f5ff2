package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.mutiny.MutinyClient;
import io.sluice.mutiny.MutinyRequester;
import io.sluice.mutiny.MutinyResponder;
import io.sluice.mutiny.MutinyServer;
import java.time.Duration;

/**
 * {@code sluice-mutiny} end to end: {@link MutinyServer} with a {@link MutinyResponder} ({@code
 * Uni}/{@code Multi}), {@link MutinyClient}/{@link MutinyRequester} with {@code subscribe().with(..)}.
 */
public final class MutinyImpl extends FlavorImpl {
  private static final Duration CONNECT = Duration.ofSeconds(10);

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) {
    ByteBuf payload = payload(size);
    return port(
        MutinyServer.serve(
                serverTransport(),
                new MutinyResponder() {
                  @Override
                  public Uni<Void> fireAndForget(Message request) {
                    request.release();
                    fnfReceived.increment();
                    return Uni.createFrom().voidItem();
                  }

                  @Override
                  public Uni<Message> requestResponse(Message request) {
                    request.release();
                    return Uni.createFrom().item(Message.of(payload));
                  }

                  @Override
                  public Multi<Message> requestStream(Message request) {
                    long n = streamLength(request);
                    Multi<Message> all = payloads(payload);
                    return n == Long.MAX_VALUE ? all : all.select().first(n);
                  }

                  @Override
                  public Multi<Message> requestChannel(Message first, Multi<Message> rest) {
                    return Multi.createBy().concatenating().streams(Multi.createFrom().item(first), rest);
                  }
                })
            .await()
            .atMost(CONNECT));
  }

  /** An unending stream of the shared payload, one message per unit of demand. */
  private static Multi<Message> payloads(ByteBuf payload) {
    return Multi.createFrom().generator(() -> payload, (p, emitter) -> {
      emitter.emit(Message.of(p));
      return p;
    });
  }

  private MutinyRequester connect(int port) {
    MutinyRequester r = MutinyClient.connect(clientTransport(port)).await().atMost(CONNECT);
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    ByteBuf payload = payload(size);
    MutinyRequester r = connect(port);
    switch (interaction) {
      case "stream":
        r.requestStream(Message.of(payload)).subscribe().with(
            m -> count(m, received), e -> failed("stream", e));
        break;
      case "channel":
        r.requestChannel(payloads(payload)).subscribe().with(
            m -> count(m, received), e -> failed("channel", e));
        break;
      case "rr":
        closedLoop(r.unwrap().executor(), window, done ->
            r.requestResponse(Message.of(payload)).subscribe().with(m -> {
              count(m, received);
              done.run();
            }, e -> failed("request", e)));
        break;
      case "fnf":
        fnfLoop(r.unwrap().executor(), window, sent ->
            r.fireAndForget(Message.of(payload)).subscribe().with(v -> sent.run(), e -> sent.run()));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    ByteBuf payload = payload(size);
    MutinyRequester r = connect(port);
    Op op =
        interaction.equals("stream24")
            ? done -> r.requestStream(stream24Request()).subscribe().with(
                Message::release, e -> failed("stream", e), done)
            : done -> r.requestResponse(Message.of(payload)).subscribe().with(m -> {
                m.release();
                done.run();
              }, e -> failed("request", e));
    timedLoop(r.unwrap().executor(), concurrency, op, sink);
  }
}
