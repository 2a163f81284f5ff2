package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.exceptions.CanceledException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;

/** Cancellation in every state of a stream. */
class CancelTest {

  /** Records what happened to each responder-side publisher. */
  static class Watching extends EchoResponder {
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    final AtomicLong produced = new AtomicLong();

    Watching() {
      super("server");
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      String d = Harness.data(request);
      events.add("rr:" + d);
      if (d.equals("barrier")) {
        return Mono.just(msg("server:barrier"));
      }
      return Mono.<Message>never().doFinally(s -> events.add("rr-" + s));
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      events.add("rs:" + Harness.data(request));
      // Infinite and synchronous: only demand and cancel stop it.
      return Flux.<Message, Long>generate(
              () -> 0L,
              (i, sink) -> {
                produced.incrementAndGet();
                sink.next(msg("item" + i));
                return i + 1;
              })
          .doFinally(s -> events.add("rs-" + s));
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      events.add("rc:" + Harness.data(first));
      rest.subscribe(
          m -> events.add("in:" + Harness.data(m)),
          e -> events.add("in-error:" + e.getClass().getSimpleName()),
          () -> events.add("in-complete"));
      return Flux.<Message>never().doFinally(s -> events.add("out-" + s));
    }

    String event() throws InterruptedException {
      String e = events.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(e).as("a server event within %s", TIMEOUT).isNotNull();
      return e;
    }
  }

  static void roundTrip(Harness h) {
    assertThat(text(h.client.requestResponse(msg("barrier")).block(TIMEOUT))).isEqualTo("server:barrier");
  }

  /** Subscribes and never requests. */
  static final class Idle extends BaseSubscriber<Message> {
    final CompletableFuture<SignalType> end = new CompletableFuture<>();

    @Override
    protected void hookOnSubscribe(Subscription s) {}

    @Override
    protected void hookOnNext(Message m) {
      m.release();
    }

    @Override
    protected void hookFinally(SignalType type) {
      end.complete(type);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void cancelBeforeStartReleasesTheRequestAndSendsNothing(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Message rr = msg("rr never sent");
      Message rs = msg("rs never sent");
      AtomicInteger outboundSubscribed = new AtomicInteger();
      Idle a = new Idle();
      Idle b = new Idle();
      Idle c = new Idle();
      h.client.requestResponse(rr).subscribe(a);
      h.client.requestStream(rs).subscribe(b);
      h.client
          .requestChannel(Flux.defer(() -> {
            outboundSubscribed.incrementAndGet();
            return Flux.just(msg("x"));
          }))
          .subscribe(c);
      a.dispose();
      b.dispose();
      c.dispose();
      assertThat(rr.refCnt()).isZero();
      assertThat(rs.refCnt()).isZero();
      assertThat(outboundSubscribed).hasValue(0);
      assertThat(a.end.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
      roundTrip(h);
      assertThat(server.event()).isEqualTo("rr:barrier");
      assertThat(server.events).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void cancelMidStreamReachesTheResponder(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      List<String> five =
          h.client.requestStream(msg("infinite")).take(5).map(Harness::text).collectList().block(TIMEOUT);
      assertThat(five).containsExactly("item0", "item1", "item2", "item3", "item4");
      assertThat(server.event()).isEqualTo("rs:infinite");
      assertThat(server.event()).isEqualTo("rs-cancel");
      roundTrip(h);
      // take(5) asks for unbounded demand upstream only after... it asks exactly 5: nothing more.
      assertThat(server.produced.get()).isLessThanOrEqualTo(5 + 256);
      h.client.requestStream(msg("again")).take(1).blockLast(TIMEOUT).release();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void cancelMidStreamFromAnotherThreadWithUnboundedDemand(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      CompletableFuture<Void> tenSeen = new CompletableFuture<>();
      AtomicLong seen = new AtomicLong();
      // Unbounded demand, messages consumed on the loop, cancel from this thread. (Not through
      // publishOn: on cancel it may discard the same element twice, which over-releases it.)
      BaseSubscriber<Message> sub =
          new BaseSubscriber<>() {
            @Override
            protected void hookOnNext(Message m) {
              m.release();
              if (seen.incrementAndGet() == 10) {
                tenSeen.complete(null);
              }
            }
          };
      h.client.requestStream(msg("infinite")).subscribe(sub);
      tenSeen.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      sub.dispose();
      assertThat(server.event()).isEqualTo("rs:infinite");
      assertThat(server.event()).isEqualTo("rs-cancel");
      roundTrip(h);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void cancelOfAPendingRequestResponseReachesTheResponder(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      reactor.core.Disposable d = h.client.requestResponse(msg("slow")).subscribe(Message::release);
      assertThat(server.event()).isEqualTo("rr:slow");
      d.dispose();
      assertThat(server.event()).isEqualTo("rr-cancel");
      roundTrip(h);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void cancelAfterCompletionIsANoOp(TestTransport t) throws Exception {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      List<String> got = new CopyOnWriteArrayList<>();
      CompletableFuture<SignalType> end = new CompletableFuture<>();
      BaseSubscriber<Message> sub =
          new BaseSubscriber<>() {
            @Override
            protected void hookOnNext(Message m) {
              got.add(text(m));
            }

            @Override
            protected void hookFinally(SignalType type) {
              end.complete(type);
            }
          };
      h.client.requestStream(msg("3:x")).subscribe(sub);
      assertThat(end.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.ON_COMPLETE);
      sub.cancel();
      sub.request(10);
      assertThat(got).containsExactly("x0", "x1", "x2");
      assertThat(text(h.client.requestResponse(msg("after")).block(TIMEOUT))).isEqualTo("server:after");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void channelCancelByTheRequester(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      CompletableFuture<SignalType> outbound = new CompletableFuture<>();
      Flux<Message> out =
          Flux.concat(Mono.fromCallable(() -> msg("first")), Flux.<Message>never())
              .doFinally(outbound::complete);
      reactor.core.Disposable d = h.client.requestChannel(out).subscribe(Message::release);
      assertThat(server.event()).isEqualTo("rc:first");
      d.dispose();
      // The responder's outbound is canceled, its inbound terminated (with CANCELED).
      List<String> after = List.of(server.event(), server.event());
      assertThat(after).containsExactlyInAnyOrder("out-cancel", "in-error:" + CanceledException.class.getSimpleName());
      assertThat(outbound.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
      roundTrip(h);
      assertThat(server.event()).isEqualTo("rr:barrier");
      assertThat(server.events).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void channelRequesterCompletesItsHalfAndTheResponderInboundCompletes(TestTransport t) throws Exception {
    Watching server = new Watching();
    try (Harness h = Harness.builder(t).responder(server).start()) {
      reactor.core.Disposable d =
          h.client.requestChannel(Flux.just(msg("first"), msg("second"))).subscribe(Message::release);
      assertThat(server.event()).isEqualTo("rc:first");
      // The responder subscribed its inbound without requesting: "second" waits for demand, but
      // the handler's subscribe(...) requests unbounded.
      assertThat(server.event()).isEqualTo("in:second");
      assertThat(server.event()).isEqualTo("in-complete");
      d.dispose();
      assertThat(server.event()).isEqualTo("out-cancel");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void manyCancelsRacingWithResponsesLeakNothing(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      Flux.range(0, 300)
          .flatMap(
              i ->
                  Flux.merge(
                          h.client.requestStream(msg("50:s")).take(1 + i % 7),
                          h.client.requestResponse(msg("r" + i)).flux())
                      .doOnNext(Message::release)
                      .then()
                      .subscribeOn(Schedulers.parallel()),
              32)
          .blockLast(TIMEOUT);
      // Requests canceled right after starting, from this thread and from the connection's loop.
      // (Not with subscribeOn: a publisher canceled before it is subscribed keeps its message.)
      for (int i = 0; i < 200; i++) {
        reactor.core.Disposable d = h.client.requestStream(msg("100:c")).subscribe(Message::release);
        d.dispose();
        h.client.unwrap().executor().execute(
            () -> h.client.requestStream(msg("100:l")).subscribe(Message::release).dispose());
      }
      assertThat(text(h.client.requestResponse(msg("still")).block(TIMEOUT))).isEqualTo("server:still");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void responderThatStopsReadingItsInboundEndsTheChannel(TestTransport t) throws Exception {
    ReactorResponder takesTwo =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            // Answers the first two messages, then cancels its inbound (take) and completes.
            return Flux.concat(
                Mono.just(EchoResponder.echo("server", first)),
                rest.take(1).map(m -> EchoResponder.echo("server", m)));
          }
        };
    try (Harness h = Harness.builder(t).responder(takesTwo).start()) {
      CompletableFuture<SignalType> outbound = new CompletableFuture<>();
      Flux<Message> out =
          Flux.<Message, Integer>generate(
                  () -> 0,
                  (i, sink) -> {
                    sink.next(msg("o" + i));
                    return i + 1;
                  })
              .doFinally(outbound::complete);
      assertThat(h.client.requestChannel(out).map(Harness::text).collectList().block(TIMEOUT))
          .containsExactly("server:o0", "server:o1");
      // Nobody reads the requester's half any more: it must be told to stop, or the stream stays
      // live on both ends (and a graceful close waits for it in vain).
      assertThat(outbound.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
      ReactorRequester server = h.serverRequester();
      h.client.close();
      h.client.onClose().block(TIMEOUT);
      server.onClose().block(TIMEOUT);
    }
  }
}
