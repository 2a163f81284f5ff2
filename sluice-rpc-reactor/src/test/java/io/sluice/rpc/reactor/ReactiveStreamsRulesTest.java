package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Item;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import io.sluice.transport.ServerTransport;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoService;
import sluice.test.echo.ReactorEchoServiceClient;
import sluice.test.echo.ReactorEchoServiceServer;

/**
 * Reactive Streams rules the reactor flavor's publishers keep, on both sides of a call over
 * RSocket on TCP (127.0.0.1) (review A12): a {@code request(n <= 0)} fails the subscriber with an
 * {@link IllegalArgumentException} and cancels what it asked (§3.9), also after the call started
 * and through client interceptors; no signal comes while {@code onSubscribe} runs (§1.3); a request
 * stream subscribed after its call ended still ends.
 */
class ReactiveStreamsRulesTest {
  private static RpcTcp tcp;
  private static ReactorEchoServiceClient client;
  private static ReactorEchoServiceClient intercepted;
  private static final Service service = new Service();

  /**
   * Say "hold" and Repeat "hold" stay open until cancelled (counted down in {@code cancelled});
   * Repeat otherwise emits "g-i" as demanded. Chat hands its request stream to {@code chats} and
   * answers nothing until cancelled.
   */
  static final class Service implements ReactorEchoService {
    volatile CountDownLatch cancelled = new CountDownLatch(1);
    volatile CountDownLatch reached = new CountDownLatch(1);
    final BlockingQueue<Flux<EchoRequest>> chats = new LinkedBlockingQueue<>();
    /** When set, chat answers with what this makes of its requests. */
    volatile java.util.function.Function<Flux<EchoRequest>, Flux<EchoReply>> chatWith;

    @Override
    public Mono<EchoReply> say(EchoRequest request) {
      CountDownLatch c = cancelled;
      reached.countDown();
      return Mono.<EchoReply>never().doOnCancel(c::countDown);
    }

    @Override
    public Flux<EchoReply> repeat(EchoRequest request) {
      CountDownLatch c = cancelled;
      return Flux.<EchoReply, Integer>generate(
              () -> 0,
              (i, sink) -> {
                sink.next(EchoImpl.reply("g", i));
                return i + 1;
              })
          .doOnCancel(c::countDown);
    }

    @Override
    public Mono<EchoReply> join(Flux<EchoRequest> requests) {
      return Mono.never();
    }

    @Override
    public Flux<EchoReply> chat(Flux<EchoRequest> requests) {
      java.util.function.Function<Flux<EchoRequest>, Flux<EchoReply>> with = chatWith;
      if (with != null) {
        return with.apply(requests);
      }
      CountDownLatch c = cancelled;
      chats.add(requests);
      return Flux.<EchoReply>never().doOnCancel(c::countDown);
    }

    @Override
    public Mono<Void> note(EchoRequest request) {
      return Mono.empty();
    }

    @Override
    public Mono<Item> lookup(Echo request) {
      return Mono.empty();
    }
  }

  /** An interceptor that passes every call on unchanged. */
  static final class PassThrough implements ClientInterceptor {
    @Override
    public <Req extends com.google.protobuf.MessageLite, Resp extends com.google.protobuf.MessageLite>
        ClientCall<Req, Resp> interceptCall(
            MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      return next.newCall(method, options);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    ServerTransport.Bound server =
        tcp.serve(ServiceRegistry.builder().add(new ReactorEchoServiceServer(service)).build());
    ReactorRequester r = tcp.connect(server);
    client = new ReactorEchoServiceClient(r);
    intercepted =
        new ReactorEchoServiceClient(
            new ReactorRequester(ClientInterceptors.intercept(r.unwrap(), new PassThrough())));
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  @BeforeEach
  void reset() {
    service.cancelled = new CountDownLatch(1);
    service.reached = new CountDownLatch(1);
    service.chats.clear();
    service.chatWith = null;
  }

  /** A call the server answers (an INTERNAL "completed without a response"): frames before it were handled. */
  private static void roundTrip() {
    assertThat(client.lookup(Echo.getDefaultInstance()).materialize().block(WAIT)).isNotNull();
  }

  private static EchoRequest req(String text) {
    return EchoRequest.newBuilder().setText(text).build();
  }

  /**
   * Records every signal, the error by its class (and code for a status). Makes the requests of
   * {@code inOnSubscribe} inside onSubscribe and then records "onSubscribe returned".
   */
  static final class Recorder<T> extends BaseSubscriber<T> {
    final List<String> signals = new CopyOnWriteArrayList<>();
    final CompletableFuture<Throwable> error = new CompletableFuture<>();
    final CountDownLatch firstNext = new CountDownLatch(1);
    volatile Subscription raw;
    private final long[] inOnSubscribe;

    Recorder(long... inOnSubscribe) {
      this.inOnSubscribe = inOnSubscribe;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      raw = s;
      for (long n : inOnSubscribe) {
        s.request(n);
      }
      signals.add("onSubscribe returned");
    }

    @Override
    protected void hookOnNext(T value) {
      signals.add("next");
      firstNext.countDown();
    }

    @Override
    protected void hookOnError(Throwable t) {
      signals.add(
          "error "
              + (t instanceof StatusException se
                  ? "StatusException " + se.code()
                  : t.getClass().getSimpleName()));
      error.complete(t);
    }

    @Override
    protected void hookOnComplete() {
      signals.add("complete");
    }

    Throwable awaitError() throws Exception {
      return error.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private void requestZeroAfterTheStartFailsAndCancels(ReactorEchoServiceClient c) throws Exception {
    Recorder<EchoReply> r = new Recorder<>(1);
    c.say(req("held")).subscribe(r);
    assertThat(service.reached.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call reached the handler").isTrue();
    r.raw.request(0);
    assertThat(r.awaitError()).isInstanceOf(IllegalArgumentException.class);
    assertThat(service.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call was cancelled").isTrue();
    assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
  }

  /** A unary call asked for 0 after its start: IllegalArgumentException, and the call is cancelled. */
  @Test
  void unaryRequestZeroAfterTheStartFailsWithIllegalArgumentAndCancels() throws Exception {
    requestZeroAfterTheStartFailsAndCancels(client);
  }

  /** The same through a client interceptor. */
  @Test
  void interceptedUnaryRequestZeroAfterTheStartFailsWithIllegalArgumentAndCancels() throws Exception {
    requestZeroAfterTheStartFailsAndCancels(intercepted);
  }

  /** A server stream asked for -1 after its first response: IllegalArgumentException, stream cancelled. */
  @Test
  void streamRequestNegativeAfterTheStartFailsWithIllegalArgumentAndCancels() throws Exception {
    Recorder<EchoReply> r = new Recorder<>(1);
    client.repeat(req("g")).subscribe(r);
    assertThat(r.firstNext.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    r.raw.request(-1);
    assertThat(r.awaitError()).isInstanceOf(IllegalArgumentException.class);
    assertThat(service.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the stream was cancelled").isTrue();
    assertThat(r.signals).containsExactly("onSubscribe returned", "next", "error IllegalArgumentException");
  }

  /** request(0) inside onSubscribe: the error comes once onSubscribe has returned, and nothing is sent. */
  @Test
  void requestZeroInsideOnSubscribeFailsAfterItReturned() throws Exception {
    for (Flux<EchoReply> call : List.of(client.say(req("held")).flux(), client.repeat(req("g")))) {
      Recorder<EchoReply> r = new Recorder<>(0);
      call.subscribe(r);
      assertThat(r.awaitError()).isInstanceOf(IllegalArgumentException.class);
      assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
    }
    assertThat(service.reached.getCount()).as("nothing reached the server").isEqualTo(1);
  }

  /**
   * A bidi handler that asks its request stream for 0: its subscriber gets the
   * IllegalArgumentException, its responses are cancelled, and the caller sees the call fail.
   */
  @Test
  void aHandlerAskingItsRequestsForZeroGetsIllegalArgumentAndItsResponsesAreCancelled() throws Exception {
    Sinks.Many<EchoRequest> requests = Sinks.many().unicast().onBackpressureBuffer();
    Recorder<EchoReply> caller = new Recorder<>(Long.MAX_VALUE);
    client.chat(requests.asFlux()).subscribe(caller);
    requests.tryEmitNext(req("one")).orThrow();
    Flux<EchoRequest> handlerRequests = service.chats.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(handlerRequests).as("the call reached the handler").isNotNull();
    Recorder<EchoRequest> handler = new Recorder<>(1);
    handlerRequests.subscribe(handler);
    assertThat(handler.firstNext.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    handler.raw.request(0);
    assertThat(handler.awaitError()).isInstanceOf(IllegalArgumentException.class);
    assertThat(service.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the responses were cancelled").isTrue();
    assertThat(caller.awaitError()).isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INTERNAL));
    requests.tryEmitComplete();
  }

  /**
   * A bidi handler whose responses follow its requests and that asks them for 0: the §3.9 error
   * reaches its responses too, yet the call ends INTERNAL, as for a handler whose responses do not
   * (before: the responses' error ended it UNKNOWN first).
   */
  @Test
  void aHandlerWhoseResponsesFollowItsRequestsAskingForZeroEndsTheCallInternal() throws Exception {
    CountDownLatch got = new CountDownLatch(1);
    // The raw subscription: BaseSubscriber's own request(0) drops the call (Operators.validate).
    java.util.concurrent.atomic.AtomicReference<Subscription> handler =
        new java.util.concurrent.atomic.AtomicReference<>();
    service.chatWith =
        requests ->
            Flux.create(
                sink -> {
                  BaseSubscriber<EchoRequest> sub =
                      new BaseSubscriber<EchoRequest>() {
                        @Override
                        protected void hookOnSubscribe(Subscription s) {
                          handler.set(s);
                          s.request(1);
                        }

                        @Override
                        protected void hookOnNext(EchoRequest value) {
                          got.countDown();
                        }

                        @Override
                        protected void hookOnError(Throwable t) {
                          sink.error(t); // the responses follow the requests, errors too
                        }
                      };
                  requests.subscribe(sub);
                });
    Sinks.Many<EchoRequest> requests = Sinks.many().unicast().onBackpressureBuffer();
    Recorder<EchoReply> caller = new Recorder<>(Long.MAX_VALUE);
    client.chat(requests.asFlux()).subscribe(caller);
    requests.tryEmitNext(req("one")).orThrow();
    assertThat(got.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call reached the handler").isTrue();
    handler.get().request(0); // from the handler's own thread, between signals
    assertThat(caller.awaitError()).isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INTERNAL));
    requests.tryEmitComplete();
  }

  /**
   * request(0) inside onSubscribe of a call through an interceptor: the error comes once
   * onSubscribe has returned, and nothing is sent (before: onError inside onSubscribe, §1.3/§3.3,
   * and the call started all the same).
   */
  @Test
  void interceptedRequestZeroInsideOnSubscribeFailsAfterItReturned() throws Exception {
    for (Flux<EchoReply> call : List.of(intercepted.say(req("held")).flux(), intercepted.repeat(req("g")))) {
      Recorder<EchoReply> r = new Recorder<>(0);
      call.subscribe(r);
      assertThat(r.awaitError()).isInstanceOf(IllegalArgumentException.class);
      assertThat(r.signals).containsExactly("onSubscribe returned", "error IllegalArgumentException");
    }
    roundTrip();
    assertThat(service.reached.getCount()).as("nothing reached the server").isEqualTo(1);
  }

  /** A handler that subscribes to its request stream only after the call was cancelled still gets its end. */
  @Test
  void aRequestStreamSubscribedAfterTheCallWasCancelledEnds() throws Exception {
    Sinks.Many<EchoRequest> requests = Sinks.many().unicast().onBackpressureBuffer();
    Recorder<EchoReply> caller = new Recorder<>(Long.MAX_VALUE);
    client.chat(requests.asFlux()).subscribe(caller);
    requests.tryEmitNext(req("one")).orThrow();
    Flux<EchoRequest> handlerRequests = service.chats.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(handlerRequests).as("the call reached the handler").isNotNull();
    caller.raw.cancel();
    assertThat(service.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call was cancelled").isTrue();
    roundTrip(); // the server handled the cancel to its end before this answer (one connection)
    Recorder<EchoRequest> late = new Recorder<>(1);
    handlerRequests.subscribe(late);
    assertThat(late.awaitError()).isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.CANCELLED));
    assertThat(late.signals).containsExactly("onSubscribe returned", "error StatusException CANCELLED");
  }
}
