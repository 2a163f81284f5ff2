package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.subscribers.DisposableSubscriber;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.rxjava.RxClient;
import io.sluice.rxjava.RxRequester;
import io.sluice.rxjava.RxResponder;
import io.sluice.rxjava.RxServer;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice-rxjava} end to end: {@link RxServer} with an {@link RxResponder} ({@code
 * Completable}/{@code Single}/{@code Flowable}), {@link RxClient}/{@link RxRequester} with lambda
 * subscribers and a {@link DisposableSubscriber} for streams.
 */
public final class RxImpl extends FlavorImpl {

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) {
    ByteBuf payload = payload(size);
    return port(
        RxServer.serve(
                serverTransport(),
                new RxResponder() {
                  @Override
                  public Completable fireAndForget(Message request) {
                    request.release();
                    fnfReceived.increment();
                    return Completable.complete();
                  }

                  @Override
                  public Single<Message> requestResponse(Message request) {
                    request.release();
                    return Single.just(Message.of(payload));
                  }

                  @Override
                  public Flowable<Message> requestStream(Message request) {
                    long n = streamLength(request);
                    Flowable<Message> all = Flowable.generate(e -> e.onNext(Message.of(payload)));
                    return n == Long.MAX_VALUE ? all : all.take(n);
                  }

                  @Override
                  public Flowable<Message> requestChannel(Message first, Flowable<Message> rest) {
                    return rest.startWithItem(first);
                  }
                })
            .timeout(10, TimeUnit.SECONDS)
            .blockingGet());
  }

  private RxRequester connect(int port) {
    RxRequester r = RxClient.connect(clientTransport(port)).timeout(10, TimeUnit.SECONDS).blockingGet();
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    ByteBuf payload = payload(size);
    RxRequester r = connect(port);
    switch (interaction) {
      case "stream":
        r.requestStream(Message.of(payload)).subscribe(new Count(received));
        break;
      case "channel":
        r.requestChannel(Flowable.<Message>generate(e -> e.onNext(Message.of(payload))))
            .subscribe(new Count(received));
        break;
      case "rr":
        closedLoop(r.unwrap().executor(), window, done ->
            r.requestResponse(Message.of(payload)).subscribe(m -> {
              count(m, received);
              done.run();
            }, e -> failed("request", e)));
        break;
      case "fnf":
        fnfLoop(r.unwrap().executor(), window, sent ->
            r.fireAndForget(Message.of(payload)).subscribe(sent::run, e -> sent.run()));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    ByteBuf payload = payload(size);
    RxRequester r = connect(port);
    Op op =
        interaction.equals("stream24")
            ? done -> r.requestStream(stream24Request()).subscribe(
                Message::release, e -> failed("stream", e), done::run)
            : done -> r.requestResponse(Message.of(payload)).subscribe(m -> {
                m.release();
                done.run();
              }, e -> failed("request", e));
    timedLoop(r.unwrap().executor(), concurrency, op, sink);
  }

  /** Unbounded demand; counts and releases. */
  private static final class Count extends DisposableSubscriber<Message> {
    private final Counter received;

    Count(Counter received) {
      this.received = received;
    }

    @Override
    protected void onStart() {
      request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Message m) {
      count(m, received);
    }

    @Override
    public void onError(Throwable cause) {
      failed("stream", cause);
    }

    @Override
    public void onComplete() {}
  }
}
