package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Request-n through the reactor API: a responder is never asked for, and a requester never gets,
 * more than was granted.
 *
 * <p>"Nothing more arrived" is checked with a round trip, not a sleep: the server's producers emit
 * synchronously when asked, and frames on one connection stay in order, so once a request-response
 * sent after a grant has been answered, every PAYLOAD that grant could cause has been delivered.
 */
class RequestNTest {

  /** The server's side of the counting stream. */
  static final class CountingServer extends EchoResponder {
    final AtomicLong produced = new AtomicLong();
    final List<Long> demands = new CopyOnWriteArrayList<>();
    final CompletableFuture<String> streamEnd = new CompletableFuture<>();
    final int total;

    CountingServer(int total) {
      super("server");
      this.total = total;
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      request.release();
      return Flux.range(0, total)
          .doOnRequest(demands::add)
          .doOnNext(i -> produced.incrementAndGet())
          .doOnCancel(() -> streamEnd.complete("cancel"))
          .doOnComplete(() -> streamEnd.complete("complete"))
          .map(i -> msg("item" + i));
    }

    long demanded() {
      long sum = 0;
      for (long d : demands) {
        sum = d == Long.MAX_VALUE || sum + d < 0 ? Long.MAX_VALUE : sum + d;
      }
      return sum;
    }
  }

  /** A subscriber that requests only what the test says. */
  static final class Manual extends BaseSubscriber<Message> {
    final BlockingQueue<String> items = new LinkedBlockingQueue<>();
    final List<String> all = new CopyOnWriteArrayList<>();
    final long initial;
    final CompletableFuture<Throwable> done = new CompletableFuture<>();
    final AtomicLong requested = new AtomicLong();

    Manual(long initial) {
      this.initial = initial;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      more(initial);
    }

    void more(long n) {
      requested.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
      request(n);
    }

    @Override
    protected void hookOnNext(Message m) {
      String t = text(m);
      all.add(t);
      items.add(t);
      assertThat((long) all.size()).as("items vs demand").isLessThanOrEqualTo(requested.get());
    }

    @Override
    protected void hookOnComplete() {
      done.complete(null);
    }

    @Override
    protected void hookOnError(Throwable t) {
      done.complete(t);
    }

    String take() throws InterruptedException {
      String s = items.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(s).as("an item within %s", TIMEOUT).isNotNull();
      return s;
    }
  }

  /** Waits until everything the server sent before answering this has been delivered. */
  static void roundTrip(Harness h) {
    assertThat(text(h.client.requestResponse(msg("barrier")).block(TIMEOUT))).isEqualTo("server:barrier");
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestOneThenThreeThenUnbounded(TestTransport t) throws Exception {
    CountingServer server = new CountingServer(1000);
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Manual sub = new Manual(1);
      h.client.requestStream(msg("go")).subscribe(sub);
      assertThat(sub.take()).isEqualTo("item0");
      roundTrip(h);
      assertThat(sub.all).containsExactly("item0");
      assertThat(server.produced).hasValue(1);
      assertThat(server.demanded()).isEqualTo(1);

      sub.more(3);
      for (int i = 1; i <= 3; i++) {
        assertThat(sub.take()).isEqualTo("item" + i);
      }
      roundTrip(h);
      assertThat(sub.all).hasSize(4);
      assertThat(server.produced).hasValue(4);
      assertThat(server.demanded()).isEqualTo(4);

      sub.more(Long.MAX_VALUE);
      assertThat(sub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNull();
      assertThat(sub.all).hasSize(1000);
      for (int i = 0; i < 1000; i++) {
        assertThat(sub.all.get(i)).isEqualTo("item" + i);
      }
      assertThat(server.streamEnd.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("complete");
      // However much was granted, the producer is asked one window at a time.
      assertThat(server.demands).allSatisfy(d -> assertThat(d).isBetween(1L, 256L));
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void limitRateNeverOverflowsAndDeliversEverything(TestTransport t) {
    CountingServer server = new CountingServer(2000);
    try (Harness h = Harness.builder(t).responder(server).start()) {
      List<String> all =
          h.client.requestStream(msg("go")).limitRate(7).map(Harness::text).collectList().block(TIMEOUT);
      assertThat(all).hasSize(2000).startsWith("item0").endsWith("item1999");
      assertThat(server.demands).allSatisfy(d -> assertThat(d).isBetween(1L, 7L));
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void demandSummingPastIntMaxIsUnbounded(TestTransport t) throws Exception {
    CountingServer server = new CountingServer(600);
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Manual sub = new Manual(Integer.MAX_VALUE - 1);
      h.client.requestStream(msg("go")).subscribe(sub);
      sub.more(10);
      sub.more(Integer.MAX_VALUE);
      assertThat(sub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNull();
      assertThat(sub.all).hasSize(600);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void smallOutboundWindowStillDeliversEverything(TestTransport t) {
    CountingServer server = new CountingServer(500);
    ConnectionOptions o = ConnectionOptions.builder().outboundWindow(3).build();
    try (Harness h = Harness.builder(t).options(o).responder(server).start()) {
      assertThat(h.client.requestStream(msg("go")).map(Harness::text).count().block(TIMEOUT)).isEqualTo(500);
      assertThat(server.demands).allSatisfy(d -> assertThat(d).isBetween(1L, 3L));
    }
  }

  /** A bare subscriber: unlike BaseSubscriber it passes any n, also illegal ones, upstream. */
  static final class Raw implements org.reactivestreams.Subscriber<Message> {
    volatile Subscription s;
    final BlockingQueue<String> items = new LinkedBlockingQueue<>();
    final CompletableFuture<Throwable> done = new CompletableFuture<>();
    final long initial;

    Raw(long initial) {
      this.initial = initial;
    }

    @Override
    public void onSubscribe(Subscription s) {
      this.s = s;
      s.request(initial);
    }

    @Override
    public void onNext(Message m) {
      items.add(text(m));
    }

    @Override
    public void onError(Throwable t) {
      done.complete(t);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void nonPositiveRequestFailsTheSubscriberAndCancelsTheResponder(TestTransport t) throws Exception {
    CountingServer server = new CountingServer(1000);
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Raw sub = new Raw(1);
      h.client.requestStream(msg("go")).subscribe(sub);
      assertThat(sub.items.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("item0");
      sub.s.request(0);
      assertThat(sub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(server.streamEnd.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("cancel");
      assertThat(server.produced).hasValue(1);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void nonPositiveFirstRequestFailsWithoutSending(TestTransport t) throws Exception {
    CountingServer server = new CountingServer(1000);
    try (Harness h = Harness.builder(t).responder(server).start()) {
      for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
        Message request = msg("never sent");
        Raw sub = new Raw(bad);
        h.client.requestStream(request).subscribe(sub);
        assertThat(sub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(request.refCnt()).isZero();
        Message rr = msg("never sent either");
        Raw rrSub = new Raw(bad);
        h.client.requestResponse(rr).subscribe(rrSub);
        assertThat(rrSub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(rr.refCnt()).isZero();
        Message ch = msg("channel never sent");
        Raw chSub = new Raw(bad);
        h.client.requestChannel(Mono.just(ch)).subscribe(chSub);
        assertThat(chSub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(ch.refCnt()).as("the channel's outbound was never pulled").isEqualTo(1);
        ch.release();
      }
      roundTrip(h);
      assertThat(server.demands).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void channelOutboundIsPulledOnlyAsTheResponderGrants(TestTransport t) throws Exception {
    BlockingQueue<String> serverInbound = new LinkedBlockingQueue<>();
    BlockingQueue<BaseSubscriber<Message>> serverSubs = new LinkedBlockingQueue<>();
    EchoResponder server =
        new EchoResponder("server") {
          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            serverInbound.add(text(first));
            BaseSubscriber<Message> in =
                new BaseSubscriber<>() {
                  @Override
                  protected void hookOnSubscribe(Subscription s) {
                    request(2);
                  }

                  @Override
                  protected void hookOnNext(Message m) {
                    serverInbound.add(text(m));
                  }

                  @Override
                  protected void hookOnError(Throwable t) {
                    serverInbound.add("error:" + t.getClass().getSimpleName());
                  }
                };
            rest.subscribe(in);
            serverSubs.add(in);
            return Flux.never();
          }
        };
    try (Harness h = Harness.builder(t).responder(server).start()) {
      AtomicLong pulled = new AtomicLong();
      List<Long> outboundDemands = new CopyOnWriteArrayList<>();
      Flux<Message> out =
          Flux.range(0, 100)
              .doOnRequest(outboundDemands::add)
              .doOnNext(i -> pulled.incrementAndGet())
              .map(i -> msg("o" + i));
      reactor.core.Disposable d = h.client.requestChannel(out).subscribe(Message::release);
      for (int i = 0; i < 3; i++) {
        assertThat(serverInbound.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("o" + i);
      }
      roundTrip(h);
      assertThat(pulled).as("first message + the 2 granted").hasValue(3);
      BaseSubscriber<Message> in = serverSubs.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      in.request(5);
      for (int i = 3; i < 8; i++) {
        assertThat(serverInbound.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("o" + i);
      }
      // The server's REQUEST_N(5) left before its answer to this round trip, so the client has
      // acted on it (its outbound emits synchronously) by the time the answer arrives.
      roundTrip(h);
      assertThat(pulled).hasValue(8);
      d.dispose();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void channelResponderOutboundRespectsRequesterDemand(TestTransport t) throws Exception {
    AtomicLong produced = new AtomicLong();
    EchoResponder server =
        new EchoResponder("server") {
          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            first.release();
            rest.subscribe(Message::release, e -> {});
            return Flux.range(0, 1000).doOnNext(i -> produced.incrementAndGet()).map(i -> msg("r" + i));
          }
        };
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Manual sub = new Manual(2);
      h.client.requestChannel(Mono.just(msg("start"))).subscribe(sub);
      assertThat(sub.take()).isEqualTo("r0");
      assertThat(sub.take()).isEqualTo("r1");
      roundTrip(h);
      assertThat(produced).hasValue(2);
      sub.more(Long.MAX_VALUE);
      assertThat(sub.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNull();
      assertThat(sub.all).hasSize(1000);
    }
  }
}
