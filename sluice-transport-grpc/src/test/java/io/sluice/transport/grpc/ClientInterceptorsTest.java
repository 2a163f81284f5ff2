package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.MessageLite;
import io.grpc.stub.StreamObserver;
import io.reactivex.rxjava3.core.Flowable;
import io.smallrye.mutiny.Multi;
import io.sluice.Requester;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.ForwardingClientCall;
import io.sluice.rpc.ForwardingClientCallListener;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ResponseMetadataListener;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.FuturesEchoServiceClient;
import sluice.test.echo.GrpcEchoServiceClient;
import sluice.test.echo.MutinyEchoServiceClient;
import sluice.test.echo.ReactorEchoService;
import sluice.test.echo.ReactorEchoServiceClient;
import sluice.test.echo.ReactorEchoServiceServer;
import sluice.test.echo.RxEchoServiceClient;

/**
 * {@link ClientInterceptor}s on both wires (RSocket over TCP, gRPC over h2c, one Sluice service
 * behind each) and through every flavor's generated client built here (reactor, futures, rxjava,
 * mutiny, StreamObserver; the blocking flavor calls the same reactor path and is tested in its
 * Java 21 module): an interceptor adds a header the server's interceptor sees for every method
 * kind; one watches requests, responses, response headers, trailers and status; several run in
 * grpc-java's order; one fails calls before anything is sent.
 */
class ClientInterceptorsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  enum Wire {
    RSOCKET,
    GRPC
  }

  private static ServerTransport.Bound rsocketServer;
  private static GrpcServer.Running grpcServer;
  private static Requester rsocket;
  private static GrpcChannel grpc;
  /** Per method (service/method), the authorization headers the server saw. */
  private static final Map<String, List<String>> seen = new ConcurrentHashMap<>();

  /** The server: records each call's authorization header, echoes as EchoServiceOnGrpcJava does. */
  static final class Recording implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      String auth = call.metadata().headers().get("authorization");
      seen.computeIfAbsent(call.method().method(), k -> new CopyOnWriteArrayList<>())
          .add(auth == null ? "<none>" : auth);
      call.sendHeaders(Headers.of("server-id", "s1"));
      return next.startCall(
          new io.sluice.rpc.ForwardingServerCall<>(call) {
            @Override
            public void close(Status status) {
              close(status, Headers.EMPTY);
            }

            @Override
            public void close(Status status, Headers trailers) {
              super.close(status, trailers.toBuilder().add("ended", status.code().name()).build());
            }
          });
    }
  }

  static final class Echo implements ReactorEchoService {
    @Override
    public Mono<EchoReply> say(EchoRequest r) {
      if (r.getAction().startsWith("fail:")) {
        String[] p = r.getAction().split(":", 3);
        return Mono.error(StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]));
      }
      return Mono.just(EchoReply.newBuilder().setText(r.getText()).build());
    }

    @Override
    public Flux<EchoReply> repeat(EchoRequest r) {
      return Flux.range(0, r.getCount()).map(i -> EchoReply.newBuilder().setText(r.getText()).setIndex(i).build());
    }

    @Override
    public Mono<EchoReply> join(Flux<EchoRequest> requests) {
      return requests.map(EchoRequest::getText).collectList()
          .map(l -> EchoReply.newBuilder().setText(String.join(",", l)).build());
    }

    @Override
    public Flux<EchoReply> chat(Flux<EchoRequest> requests) {
      return requests.map(r -> EchoReply.newBuilder().setText("chat:" + r.getText()).build());
    }

    @Override
    public Mono<Void> note(EchoRequest request) {
      return Mono.empty();
    }

    @Override
    public Mono<io.sluice.rpc.it.common.Item> lookup(sluice.test.echo.EchoOuterClass.Echo request) {
      return Mono.just(io.sluice.rpc.it.common.Item.getDefaultInstance());
    }
  }

  @BeforeAll
  static void start() throws Exception {
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(ServerInterceptors.intercept(new ReactorEchoServiceServer(new Echo()), new Recording()))
            .build();
    rsocketServer =
        Connections.serve(TcpServerTransport.create("127.0.0.1", 0), ConnectionOptions.defaults(), RpcResponder.acceptor(registry))
            .get(30, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) rsocketServer.address()).getPort();
    rsocket = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT).unwrap();
    grpcServer = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    grpc = GrpcClientTransport.create("127.0.0.1", grpcServer.port()).connect().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    rsocket.dispose();
    grpc.dispose();
    rsocketServer.close();
    grpcServer.close();
    grpcServer.onClose().get(30, TimeUnit.SECONDS);
  }

  @BeforeEach
  void clear() {
    seen.clear();
  }

  private static Requester wire(Wire w) {
    return w == Wire.RSOCKET ? rsocket : grpc;
  }

  // tag::auth[]
  /** Adds a bearer token to every call. */
  static final class BearerToken implements ClientInterceptor {
    private final String token;

    BearerToken(String token) {
      this.token = token;
    }

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      return new ForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(ClientCall.Listener<Resp> listener, Headers headers) {
          super.start(listener, headers.toBuilder().add("authorization", "Bearer " + token).build());
        }
      };
    }
  }
  // end::auth[]

  private static EchoRequest req(String text) {
    return EchoRequest.newBuilder().setText(text).build();
  }

  private static List<String> texts(List<EchoReply> replies) {
    return replies.stream().map(EchoReply::getText).toList();
  }

  private void assertEveryKindSaw(String auth) {
    for (String m : List.of("Say", "Repeat", "Join", "Chat")) {
      assertThat(seen.get(m)).as(m).containsExactly(auth);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void reactorCallsCarryTheHeader(Wire w) {
    Requester connection = wire(w); // an RSocket connection or a GrpcChannel
    // tag::use[]
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(ClientInterceptors.intercept(connection, new BearerToken("r")));
    // end::use[]
    assertThat(c.say(req("a")).block(WAIT).getText()).isEqualTo("a");
    assertThat(c.repeat(req("x").toBuilder().setCount(3).build()).collectList().block(WAIT)).hasSize(3);
    assertThat(c.join(Flux.just(req("a"), req("b"))).block(WAIT).getText()).isEqualTo("a,b");
    assertThat(texts(c.chat(Flux.just(req("a"), req("b"), req("c"))).collectList().block(WAIT)))
        .containsExactly("chat:a", "chat:b", "chat:c");
    assertEveryKindSaw("Bearer r");
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void futuresCallsCarryTheHeader(Wire w) throws Exception {
    FuturesEchoServiceClient c = new FuturesEchoServiceClient(ClientInterceptors.intercept(wire(w), new BearerToken("f")));
    assertThat(c.say(req("f")).get(30, TimeUnit.SECONDS).getText()).isEqualTo("f");
    assertThat(JdkFlowAdapter.flowPublisherToFlux(c.repeat(req("x").toBuilder().setCount(4).build())).count().block(WAIT))
        .isEqualTo(4);
    assertThat(c.join(JdkFlowAdapter.publisherToFlowPublisher(Flux.just(req("a"), req("b")))).get(30, TimeUnit.SECONDS).getText())
        .isEqualTo("a,b");
    assertThat(texts(JdkFlowAdapter.flowPublisherToFlux(c.chat(JdkFlowAdapter.publisherToFlowPublisher(Flux.just(req("z"))))).collectList().block(WAIT)))
        .containsExactly("chat:z");
    assertEveryKindSaw("Bearer f");
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void rxjavaCallsCarryTheHeader(Wire w) {
    RxEchoServiceClient c = new RxEchoServiceClient(ClientInterceptors.intercept(wire(w), new BearerToken("x")));
    assertThat(c.say(req("rx")).blockingGet().getText()).isEqualTo("rx");
    assertThat(c.repeat(req("x").toBuilder().setCount(2).build()).toList().blockingGet()).hasSize(2);
    assertThat(c.join(Flowable.just(req("a"), req("b"))).blockingGet().getText()).isEqualTo("a,b");
    assertThat(texts(c.chat(Flowable.just(req("q"))).toList().blockingGet())).containsExactly("chat:q");
    assertEveryKindSaw("Bearer x");
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void mutinyCallsCarryTheHeader(Wire w) {
    MutinyEchoServiceClient c = new MutinyEchoServiceClient(ClientInterceptors.intercept(wire(w), new BearerToken("m")));
    assertThat(c.say(req("m")).await().atMost(WAIT).getText()).isEqualTo("m");
    assertThat(c.repeat(req("x").toBuilder().setCount(5).build()).collect().asList().await().atMost(WAIT)).hasSize(5);
    assertThat(c.join(Multi.createFrom().items(req("a"), req("b"))).await().atMost(WAIT).getText()).isEqualTo("a,b");
    assertThat(texts(c.chat(Multi.createFrom().items(req("a"))).collect().asList().await().atMost(WAIT))).containsExactly("chat:a");
    assertEveryKindSaw("Bearer m");
  }

  /** Collects what a StreamObserver is told. */
  private static final class Collector<T> implements StreamObserver<T> {
    final List<T> values = new CopyOnWriteArrayList<>();
    final CompletableFuture<List<T>> done = new CompletableFuture<>();

    @Override
    public void onNext(T value) {
      values.add(value);
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(values);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void streamObserverCallsCarryTheHeader(Wire w) throws Exception {
    GrpcEchoServiceClient c = new GrpcEchoServiceClient(ClientInterceptors.intercept(wire(w), new BearerToken("g")));
    Collector<EchoReply> say = new Collector<>();
    c.say(req("g"), say);
    assertThat(texts(say.done.get(30, TimeUnit.SECONDS))).containsExactly("g");
    Collector<EchoReply> repeat = new Collector<>();
    c.repeat(req("x").toBuilder().setCount(3).build(), repeat);
    assertThat(repeat.done.get(30, TimeUnit.SECONDS)).hasSize(3);
    Collector<EchoReply> join = new Collector<>();
    StreamObserver<EchoRequest> joining = c.join(join);
    joining.onNext(req("a"));
    joining.onNext(req("b"));
    joining.onCompleted();
    assertThat(texts(join.done.get(30, TimeUnit.SECONDS))).containsExactly("a,b");
    Collector<EchoReply> chat = new Collector<>();
    StreamObserver<EchoRequest> chatting = c.chat(chat);
    chatting.onNext(req("hi"));
    chatting.onCompleted();
    assertThat(texts(chat.done.get(30, TimeUnit.SECONDS))).containsExactly("chat:hi");
    assertEveryKindSaw("Bearer g");
  }

  /** What {@link Watching} saw of one call. */
  static final class Seen {
    final List<String> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();
    volatile Headers headers;
    volatile Headers trailers;
  }

  /** Sees requests, responses, headers, trailers and status; asks for response metadata. */
  static final class Watching implements ClientInterceptor {
    final Seen seen = new Seen();

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      CallOptions o = options.responseMetadata() != null ? options : options.withResponseMetadata(new ResponseMetadataListener() {
        @Override
        public void onHeaders(Headers headers) {}

        @Override
        public void onTrailers(Headers trailers) {}
      });
      return new ForwardingClientCall<>(next.newCall(method, o)) {
        @Override
        public void start(ClientCall.Listener<Resp> listener, Headers headers) {
          super.start(new ForwardingClientCallListener<>(listener) {
            @Override
            public void onHeaders(Headers h) {
              seen.headers = h;
              super.onHeaders(h);
            }

            @Override
            public void onMessage(Resp message) {
              seen.events.add("response:" + ((EchoReply) message).getText());
              super.onMessage(message);
            }

            @Override
            public void onClose(Status status, Headers trailers) {
              seen.trailers = trailers;
              seen.status.complete(status);
              super.onClose(status, trailers);
            }
          }, headers);
        }

        @Override
        public void sendMessage(Req message) {
          seen.events.add("request:" + ((EchoRequest) message).getText());
          super.sendMessage(message);
        }
      };
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void anInterceptorSeesMessagesMetadataAndStatus(Wire w) throws Exception {
    Watching ok = new Watching();
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(ClientInterceptors.intercept(wire(w), ok));
    assertThat(texts(c.chat(Flux.just(req("a"), req("b"))).collectList().block(WAIT))).containsExactly("chat:a", "chat:b");
    assertThat(ok.seen.status.get(30, TimeUnit.SECONDS)).isEqualTo(Status.OK);
    assertThat(ok.seen.events).containsExactlyInAnyOrder("request:a", "request:b", "response:chat:a", "response:chat:b");
    assertThat(ok.seen.events.indexOf("request:a")).isLessThan(ok.seen.events.indexOf("response:chat:a"));
    assertThat(ok.seen.headers.get("server-id")).isEqualTo("s1");
    assertThat(ok.seen.trailers.get("ended")).isEqualTo("OK");

    Watching failed = new Watching();
    FuturesEchoServiceClient f = new FuturesEchoServiceClient(ClientInterceptors.intercept(wire(w), failed));
    CompletableFuture<EchoReply> r = f.say(EchoRequest.newBuilder().setText("q").setAction("fail:9:not now").build());
    Status s = failed.seen.status.get(30, TimeUnit.SECONDS);
    assertThat(s.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(s.description()).isEqualTo("not now");
    assertThat(failed.seen.trailers.get("ended")).isEqualTo("FAILED_PRECONDITION");
    assertThat(failed.seen.events).containsExactly("request:q");
    assertThat(r).failsWithin(WAIT).withThrowableThat().havingCause().isInstanceOf(StatusException.class);
  }

  /** Records the order in which interceptors see a call's start and its end. */
  static final class Named implements ClientInterceptor {
    private final String name;
    private final List<String> log;

    Named(String name, List<String> log) {
      this.name = name;
      this.log = log;
    }

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      log.add("intercept " + name);
      return new ForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(ClientCall.Listener<Resp> listener, Headers headers) {
          log.add("start " + name);
          super.start(new ForwardingClientCallListener<>(listener) {
            @Override
            public void onClose(Status status, Headers trailers) {
              log.add("close " + name);
              super.onClose(status, trailers);
            }
          }, headers.toBuilder().add("authorization", name).build());
        }
      };
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void severalInterceptorsRunLastFirst(Wire w) {
    List<String> log = new CopyOnWriteArrayList<>();
    Requester r = ClientInterceptors.intercept(ClientInterceptors.intercept(wire(w), new Named("a", log)), new Named("b", log));
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(ClientInterceptors.intercept(r, new Named("c", log)));
    assertThat(c.say(req("o")).block(WAIT).getText()).isEqualTo("o");
    // The answer can reach the caller before the listeners hear the call's end (on the event loop):
    // a bounded wait for the outermost one.
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!log.contains("close c") && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
    // intercept(intercept(intercept(r, a), b), c) = intercept(r, a, b, c): c sees the call first,
    // and the listener of the innermost (a) hears the end first.
    assertThat(log).containsExactly("intercept c", "intercept b", "intercept a", "start c", "start b", "start a",
        "close a", "close b", "close c");
    // Each added its header in start, so the transport got them in the order c, b, a.
    assertThat(seen.get("Say")).hasSize(1);
  }

  // tag::refuse[]
  /** Refuses every call before anything is sent. */
  static final class Refusing implements ClientInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      return ClientInterceptors.failing(Status.of(Status.Code.UNAUTHENTICATED, "no token on the client"));
    }
  }
  // end::refuse[]

  @ParameterizedTest
  @EnumSource(Wire.class)
  void anInterceptorFailsACallBeforeItStarts(Wire w) throws Exception {
    Requester r = ClientInterceptors.intercept(wire(w), new Refusing());
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(r);
    assertThat(failure(() -> c.say(req("a")).block(WAIT))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(failure(() -> c.chat(Flux.just(req("a"))).blockLast(WAIT))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(failure(() -> new FuturesEchoServiceClient(r).repeat(req("a")) == null
        ? null : JdkFlowAdapter.flowPublisherToFlux(new FuturesEchoServiceClient(r).repeat(req("a"))).blockLast(WAIT)))
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    Collector<EchoReply> join = new Collector<>();
    StreamObserver<EchoRequest> joining = new GrpcEchoServiceClient(r).join(join);
    joining.onNext(req("a"));
    joining.onCompleted();
    assertThat(failure(() -> join.done.join())).isEqualTo(Status.Code.UNAUTHENTICATED);
    // Nothing reached the server: a call after them is the first it sees.
    ReactorEchoServiceClient plain = new ReactorEchoServiceClient(wire(w));
    assertThat(plain.say(req("after")).block(WAIT).getText()).isEqualTo("after");
    assertThat(seen.keySet()).containsExactly("Say");
    assertThat(seen.get("Say")).containsExactly("<none>");
  }

  private static Status.Code failure(java.util.function.Supplier<?> call) {
    try {
      call.get();
    } catch (Throwable t) {
      for (Throwable c = t; c != null; c = c.getCause()) {
        if (c instanceof StatusException se) {
          return se.status().code();
        }
        if (c instanceof io.grpc.StatusRuntimeException sre) {
          return Status.Code.fromValue(sre.getStatus().getCode().value());
        }
      }
      throw new AssertionError("not a status failure", t);
    }
    throw new AssertionError("the call did not fail");
  }
}
