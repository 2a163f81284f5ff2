package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.futures.FuturesResponder;
import io.sluice.futures.FuturesServer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice-futures} end to end: {@link FuturesServer} with a {@link FuturesResponder}
 * ({@code CompletionStage}, {@code Flow.Publisher} from {@link FlowStreams#fromIterator}), and
 * {@link FuturesClient}/{@link FuturesRequester} with {@code CompletableFuture} callbacks and a
 * plain {@code Flow.Subscriber}.
 */
public final class FuturesImpl extends FlavorImpl {

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    ByteBuf payload = payload(size);
    return port(
        FuturesServer.serve(
                serverTransport(),
                new FuturesResponder() {
                  @Override
                  public void fireAndForget(Message request) {
                    request.release();
                    fnfReceived.increment();
                  }

                  @Override
                  public CompletionStage<Message> requestResponse(Message request) {
                    request.release();
                    return CompletableFuture.completedFuture(Message.of(payload));
                  }

                  @Override
                  public Flow.Publisher<Message> requestStream(Message request) {
                    return FlowStreams.fromIterator(new Payloads(payload, streamLength(request)));
                  }

                  @Override
                  public Flow.Publisher<Message> requestChannel(
                      Message first, Flow.Publisher<Message> rest) {
                    return new Echo(first, rest);
                  }
                })
            .get(10, TimeUnit.SECONDS));
  }

  private FuturesRequester connect(int port) throws Exception {
    FuturesRequester r = FuturesClient.connect(clientTransport(port)).get(10, TimeUnit.SECONDS);
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received)
      throws Exception {
    ByteBuf payload = payload(size);
    FuturesRequester r = connect(port);
    switch (interaction) {
      case "stream":
        r.requestStream(Message.of(payload)).subscribe(new Count(received));
        break;
      case "channel":
        r.requestChannel(FlowStreams.fromIterator(new Payloads(payload, Long.MAX_VALUE)))
            .subscribe(new Count(received));
        break;
      case "rr":
        closedLoop(r.unwrap().executor(), window, done ->
            r.requestResponse(Message.of(payload)).whenComplete((m, e) -> {
              if (e != null) {
                failed("request", e);
              } else {
                count(m, received);
                done.run();
              }
            }));
        break;
      case "fnf":
        fnfLoop(r.unwrap().executor(), window, sent ->
            r.fireAndForget(Message.of(payload)).whenComplete((v, e) -> sent.run()));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception {
    ByteBuf payload = payload(size);
    FuturesRequester r = connect(port);
    Op op =
        interaction.equals("stream24")
            ? done -> FlowStreams.forEach(r.requestStream(stream24Request()), 64, Message::release)
                .whenComplete((v, e) -> {
                  if (e != null) {
                    failed("stream", e);
                  } else {
                    done.run();
                  }
                })
            : done -> r.requestResponse(Message.of(payload)).whenComplete((m, e) -> {
                if (e != null) {
                  failed("request", e);
                } else {
                  m.release();
                  done.run();
                }
              });
    timedLoop(r.unwrap().executor(), concurrency, op, sink);
  }

  /**
   * {@code count} messages of the shared payload ({@link Long#MAX_VALUE}: endless), made as they
   * are pulled. Also used by {@code FlavorBenchmark}.
   */
  public static final class Payloads implements Iterator<Message> {
    private final ByteBuf payload;
    private long remaining;

    public Payloads(ByteBuf payload, long count) {
      this.payload = payload;
      this.remaining = count;
    }

    @Override
    public boolean hasNext() {
      return remaining > 0;
    }

    @Override
    public Message next() {
      if (remaining <= 0) {
        throw new NoSuchElementException();
      }
      if (remaining != Long.MAX_VALUE) {
        remaining--;
      }
      return Message.of(payload);
    }
  }

  /**
   * A channel's echo: {@code first}, then every message of {@code rest}, each passed straight on
   * with the subscriber's demand. The Flow adapter calls it on the connection's event loop.
   */
  private static final class Echo
      implements Flow.Publisher<Message>, Flow.Subscriber<Message>, Flow.Subscription {
    private final Flow.Publisher<Message> rest;
    private Message first;
    private Flow.Subscriber<? super Message> downstream;
    private Flow.Subscription upstream;

    Echo(Message first, Flow.Publisher<Message> rest) {
      this.first = first;
      this.rest = rest;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Message> subscriber) {
      downstream = subscriber;
      rest.subscribe(this);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      upstream = subscription;
      downstream.onSubscribe(this);
    }

    @Override
    public void request(long n) {
      Message f = first;
      if (f != null) {
        first = null;
        downstream.onNext(f);
        if (n != Long.MAX_VALUE) {
          n--;
        }
      }
      if (n > 0) {
        upstream.request(n);
      }
    }

    @Override
    public void cancel() {
      Message f = first;
      first = null;
      if (f != null) {
        f.release();
      }
      upstream.cancel();
    }

    @Override
    public void onNext(Message m) {
      downstream.onNext(m);
    }

    @Override
    public void onError(Throwable t) {
      downstream.onError(t);
    }

    @Override
    public void onComplete() {
      downstream.onComplete();
    }
  }

  /** Unbounded demand; counts and releases. */
  private static final class Count implements Flow.Subscriber<Message> {
    private final Counter received;

    Count(Counter received) {
      this.received = received;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(Long.MAX_VALUE);
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
