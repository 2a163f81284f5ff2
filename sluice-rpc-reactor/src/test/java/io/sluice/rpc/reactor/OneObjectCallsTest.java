package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.UnaryCallHandler;
import io.sluice.rpc.it.common.Item;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import io.sluice.rpc.rsocket.RpcErrors;
import io.sluice.transport.ServerTransport;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The one-object calls of the reactor flavor's fast path over RSocket on TCP (127.0.0.1): the
 * client's {@link UnaryCall} and {@link StreamCall} (publisher, subscription and stream listener at
 * once) and the server's {@link UnaryCallHandler#startUnary} (a unary call answered at once needs
 * no listener of its own). Cancels before and after the response, demand, resubscription, closed
 * connections and failures, each followed, where it matters, by a call on the same connection whose
 * answer proves that everything sent before it has been handled (one connection keeps frame order).
 * Leaks fail the build (PARANOID leak detection).
 */
class OneObjectCallsTest {
  private static RpcTcp tcp;
  private static ServerTransport.Bound server;
  private static ReactorEchoServiceClient client;
  private static final Held held = new Held();

  /**
   * Say: "hold" keeps the call open until the test answers it through its sink (queued in {@code
   * pending}); anything else echoes at once. Repeat: "gen" produces replies only as demanded,
   * counting them. Counts every call of Say.
   */
  static final class Held implements ReactorEchoService {
    final AtomicInteger says = new AtomicInteger();
    final AtomicInteger generated = new AtomicInteger();
    final BlockingQueue<Sinks.One<EchoReply>> pending = new LinkedBlockingQueue<>();
    volatile CountDownLatch cancelled = new CountDownLatch(1);
    private final EchoImpl echo = new EchoImpl();

    @Override
    public Mono<EchoReply> say(EchoRequest request) {
      says.incrementAndGet();
      if (request.getAction().equals("hold")) {
        Sinks.One<EchoReply> sink = Sinks.one();
        CountDownLatch latch = cancelled;
        pending.add(sink);
        return sink.asMono().doOnCancel(latch::countDown);
      }
      return echo.say(request);
    }

    @Override
    public Flux<EchoReply> repeat(EchoRequest request) {
      if (request.getAction().equals("gen")) {
        CountDownLatch latch = cancelled;
        return Flux.<EchoReply, Integer>generate(
                () -> 0,
                (i, sink) -> {
                  generated.incrementAndGet();
                  sink.next(EchoImpl.reply("g", i));
                  return i + 1;
                })
            .doOnCancel(latch::countDown);
      }
      return echo.repeat(request);
    }

    @Override
    public Mono<EchoReply> join(Flux<EchoRequest> requests) {
      return echo.join(requests);
    }

    @Override
    public Flux<EchoReply> chat(Flux<EchoRequest> requests) {
      return echo.chat(requests);
    }

    @Override
    public Mono<Void> note(EchoRequest request) {
      return echo.note(request);
    }

    @Override
    public Mono<Item> lookup(Echo request) {
      return echo.lookup(request);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    server = tcp.serve(ServiceRegistry.builder().add(new ReactorEchoServiceServer(held)).build());
    client = new ReactorEchoServiceClient(tcp.connect(server));
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  @BeforeEach
  void reset() {
    held.cancelled = new CountDownLatch(1);
    held.pending.clear();
  }

  private static EchoRequest req(String text, String action) {
    return EchoRequest.newBuilder().setText(text).setAction(action).build();
  }

  /** A call answered at once: once its answer is here, every frame sent before it was handled. */
  private static void roundTrip() {
    assertThat(client.say(req("sync", "")).block(WAIT).getText()).isEqualTo("sync");
  }

  /**
   * Records every signal. In onSubscribe it makes each request of {@code inOnSubscribe} on the
   * call's own subscription ({@link #raw}), which the tests also use directly: BaseSubscriber's
   * request and cancel filter what the call would see.
   */
  static final class Recorder<T> extends BaseSubscriber<T> {
    final List<String> signals = new CopyOnWriteArrayList<>();
    final CountDownLatch firstNext = new CountDownLatch(1);
    volatile Subscription raw;
    private final long[] inOnSubscribe;
    private final boolean cancelOnNext;

    Recorder(boolean cancelOnNext, long... inOnSubscribe) {
      this.inOnSubscribe = inOnSubscribe;
      this.cancelOnNext = cancelOnNext;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      raw = s;
      for (long n : inOnSubscribe) {
        s.request(n);
      }
    }

    @Override
    protected void hookOnNext(T value) {
      signals.add("next " + ((EchoReply) value).getText());
      firstNext.countDown();
      if (cancelOnNext) {
        raw.cancel();
      }
    }

    @Override
    protected void hookOnError(Throwable t) {
      signals.add("error " + RpcErrors.fromThrowable(t).code());
    }

    @Override
    protected void hookOnComplete() {
      signals.add("complete");
    }
  }

  private static Sinks.One<EchoReply> nextHeld() throws InterruptedException {
    Sinks.One<EchoReply> sink = held.pending.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(sink).as("the held call reached the handler").isNotNull();
    return sink;
  }

  @Test
  void aHeldUnaryCallIsAnsweredLaterFromAnotherThread() throws InterruptedException {
    Recorder<EchoReply> r = new Recorder<>(false, Long.MAX_VALUE);
    client.say(req("later", "hold")).subscribe(r);
    nextHeld().tryEmitValue(EchoImpl.reply("answered", 0)).orThrow();
    assertThat(r.firstNext.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    roundTrip();
    assertThat(r.signals).containsExactly("next answered", "complete");
  }

  @Test
  void cancelBeforeTheResponseCancelsTheServerHandlerAndSignalsNothing() throws InterruptedException {
    Recorder<EchoReply> r = new Recorder<>(false, Long.MAX_VALUE);
    client.say(req("x", "hold")).subscribe(r);
    Sinks.One<EchoReply> sink = nextHeld();
    r.raw.cancel();
    assertThat(held.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("server handler cancelled").isTrue();
    sink.tryEmitValue(EchoImpl.reply("too late", 0)); // nobody listens any more
    roundTrip();
    assertThat(r.signals).isEmpty();
  }

  @Test
  void cancelInOnNextDeliversTheValueAndNothingElse() {
    Recorder<EchoReply> r = new Recorder<>(true, Long.MAX_VALUE);
    client.say(req("v", "")).subscribe(r);
    roundTrip(); // the first call's frames came before this answer
    assertThat(r.signals).containsExactly("next v");
  }

  @Test
  void cancelBeforeAnyDemandSendsNothing() {
    int before = held.says.get();
    Recorder<EchoReply> r = new Recorder<>(false);
    client.say(req("never sent", "")).subscribe(r);
    r.raw.cancel();
    r.raw.request(1); // after the cancel: still nothing
    roundTrip();
    assertThat(held.says.get() - before).as("only the round trip reached the server").isEqualTo(1);
    assertThat(r.signals).isEmpty();
  }

  @Test
  void demandAfterOnSubscribeStartsTheCall() {
    Recorder<EchoReply> r = new Recorder<>(false);
    client.say(req("late demand", "")).subscribe(r);
    r.raw.request(1);
    roundTrip();
    assertThat(r.signals).containsExactly("next late demand", "complete");
  }

  @Test
  void nonPositiveDemandFailsTheCallWithoutSendingIt() {
    int before = held.says.get();
    Recorder<EchoReply> r = new Recorder<>(false);
    client.say(req("bad demand", "")).subscribe(r);
    r.raw.request(0);
    roundTrip();
    assertThat(held.says.get() - before).isEqualTo(1);
    assertThat(r.signals).containsExactly("error UNKNOWN");
  }

  @Test
  void eachSubscriptionOfTheSameMonoIsANewCall() {
    int before = held.says.get();
    Mono<EchoReply> call = client.say(req("again", ""));
    for (int i = 0; i < 3; i++) {
      assertThat(call.block(WAIT).getText()).isEqualTo("again");
    }
    assertThat(held.says.get() - before).isEqualTo(3);
  }

  @Test
  void eachSubscriptionOfTheSameFluxIsANewCall() {
    Flux<EchoReply> call = client.repeat(EchoRequest.newBuilder().setText("r").setCount(2).build());
    for (int i = 0; i < 3; i++) {
      assertThat(call.map(EchoReply::getText).collectList().block(WAIT)).containsExactly("r-0", "r-1");
    }
  }

  @Test
  void callsOnAClosedConnectionFailUnavailable() {
    ReactorRequester closed = tcp.connect(server);
    closed.dispose();
    closed.onClose().onErrorResume(e -> Mono.empty()).block(WAIT); // disposed: ends with an error
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(closed);
    assertThatThrownBy(() -> c.say(req("x", "")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThatThrownBy(() -> c.repeat(req("x", "")).blockLast(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void streamDemandReachesTheServerExactly() throws InterruptedException {
    int before = held.generated.get();
    Recorder<EchoReply> r = new Recorder<>(false, 1, 1); // both parked until onSubscribe returns
    client.repeat(req("g", "gen")).subscribe(r);
    assertThat(r.firstNext.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    r.raw.request(3);
    for (int i = 0; i < 1000 && r.signals.size() < 5; i++) {
      roundTrip(); // a bounded wait for the five granted replies
    }
    assertThat(r.signals).containsExactly("next g", "next g", "next g", "next g", "next g");
    r.raw.cancel();
    assertThat(held.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("server stream cancelled").isTrue();
    assertThat(held.generated.get() - before).as("the server produced what was granted").isEqualTo(5);
    roundTrip();
    assertThat(r.signals).hasSize(5);
  }

  @Test
  void streamCancelInOnNextEndsTheStream() throws InterruptedException {
    Recorder<EchoReply> r = new Recorder<>(true, Long.MAX_VALUE);
    client.repeat(req("g", "gen")).subscribe(r);
    assertThat(held.cancelled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("server stream cancelled").isTrue();
    roundTrip();
    assertThat(r.signals).containsExactly("next g");
  }

  @Test
  void scalarErrorEmptyAndThrowingHandlersEndTheCallWithTheirStatus() {
    assertThatThrownBy(() -> client.say(req("x", "fail:5:nothing here")).block(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> {
              assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.status().description()).isEqualTo("nothing here");
            });
    assertThatThrownBy(() -> client.say(req("x", "empty")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INTERNAL));
    assertThatThrownBy(() -> client.say(req("x", "throw")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNKNOWN));
  }

  @Test
  void responseMetadataOfACallAnsweredAtOnceIsEmpty() {
    ResponseMetadataCapture ok = new ResponseMetadataCapture();
    ReactorEchoServiceClient c = client.withOptions(CallOptions.DEFAULT.withResponseMetadata(ok));
    assertThat(c.say(req("md", "")).block(WAIT).getText()).isEqualTo("md");
    assertThat(ok.headers()).isEqualTo(Headers.EMPTY);
    assertThat(ok.trailers()).isEqualTo(Headers.EMPTY);
    ResponseMetadataCapture failed = new ResponseMetadataCapture();
    ReactorEchoServiceClient f = client.withOptions(CallOptions.DEFAULT.withResponseMetadata(failed));
    assertThatThrownBy(() -> f.say(req("x", "fail:5:gone")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
    assertThat(failed.trailers()).isEqualTo(Headers.EMPTY);
  }

  /** A unary handler whose startCall must not be used over RSocket request-response. */
  private static final class OnlyStartUnary implements UnaryCallHandler<EchoRequest, EchoReply> {
    final AtomicInteger unaryStarts = new AtomicInteger();
    private final String mode;

    OnlyStartUnary(String mode) {
      this.mode = mode;
    }

    @Override
    public ServerCall.Listener<EchoRequest> startCall(ServerCall<EchoRequest, EchoReply> call) {
      call.close(Status.of(Status.Code.FAILED_PRECONDITION, "startCall used"));
      return null;
    }

    @Override
    public ServerCall.Listener<EchoRequest> startUnary(ServerCall<EchoRequest, EchoReply> call, EchoRequest request) {
      unaryStarts.incrementAndGet();
      switch (mode) {
        case "throw":
          throw new IllegalStateException("startUnary threw");
        case "null":
          return null;
        default:
          call.sendMessage(EchoImpl.reply("unary:" + request.getText(), 0));
          call.close(Status.OK);
          return IGNORING;
      }
    }
  }

  private static final ServerCall.Listener<EchoRequest> IGNORING =
      new ServerCall.Listener<EchoRequest>() {
        @Override
        public void onMessage(EchoRequest message) {}

        @Override
        public void onHalfClose() {}

        @Override
        public void onCancel() {}

        @Override
        public void onReady(long n) {}
      };

  private static ReactorEchoServiceClient serving(OnlyStartUnary handler) throws Exception {
    ServiceDefinition def = ServiceDefinition.builder(ReactorEchoService.SERVICE).add(ReactorEchoService.SAY, handler).build();
    return new ReactorEchoServiceClient(tcp.connect(tcp.serve(ServiceRegistry.builder().add(def).build())));
  }

  @Test
  void rsocketHandsAUnaryRequestToStartUnary() throws Exception {
    OnlyStartUnary h = new OnlyStartUnary("answer");
    assertThat(serving(h).say(req("a", "")).block(WAIT).getText()).isEqualTo("unary:a");
    assertThat(h.unaryStarts.get()).isEqualTo(1);
  }

  @Test
  void startUnaryThatThrowsOrReturnsNoListenerFailsTheCall() throws Exception {
    assertThatThrownBy(() -> serving(new OnlyStartUnary("throw")).say(req("a", "")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNKNOWN));
    assertThatThrownBy(() -> serving(new OnlyStartUnary("null")).say(req("a", "")).block(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INTERNAL));
  }
}
