package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static io.sluice.rpc.reactor.fixture.RpcTcp.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.BindableService;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ForwardingServerCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoServiceClient;
import sluice.test.echo.ReactorEchoServiceServer;

/**
 * {@link ServerInterceptors} over RPC over RSocket on TCP (127.0.0.1), with the reactor flavor, on
 * every method kind: an interceptor that refuses calls without a token (the handler never starts,
 * and the leak check of the class finds every request's bytes released), and one that sends a
 * response header and adds a trailer, which callers read through {@link
 * CallOptions#withResponseMetadata}.
 */
class InterceptorsOverRsocketTest {
  private static final Headers TOKEN = Headers.of("authorization", "Bearer t0k3n");
  private static final Headers REALM = Headers.of("www-authenticate", "Bearer realm=sluice");

  private static RpcTcp tcp;
  private static ReactorEchoServiceClient client;
  /** Calls that got past the auth interceptor, per method: the handler started for them. */
  private static final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();

  // tag::interceptors[]
  /** Refuses calls without a valid token: the handler never runs for them. */
  static final class Authenticating implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      if (!"Bearer t0k3n".equals(call.metadata().headers().get("authorization"))) {
        return ServerInterceptors.reject(call, Status.of(Status.Code.UNAUTHENTICATED, "no valid token"),
            Headers.of("www-authenticate", "Bearer realm=sluice"));
      }
      return next.startCall(call);
    }
  }

  /** Sends a response header as the call starts, and adds a trailer to however it ends. */
  static final class AddsMetadata implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      call.sendHeaders(Headers.of("server-id", "s1"));
      return next.startCall(new ForwardingServerCall<>(call) {
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
  // end::interceptors[]

  /** Applied first, so it runs last, right before the handler: counts the calls that reach it. */
  private static final ServerInterceptor COUNTING =
      new ServerInterceptor() {
        @Override
        public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
            ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
          started.computeIfAbsent(call.method().method(), k -> new AtomicInteger()).incrementAndGet();
          return next.startCall(call);
        }
      };

  /**
   * Refuses a call carrying {@code refuse-later} from another thread, after the call started, as an
   * interceptor waiting for an asynchronous lookup would, without ever requesting the call's
   * messages: the transport must still release the request it holds (the leak detector fails the
   * test otherwise).
   */
  private static final ServerInterceptor REFUSES_LATER =
      new ServerInterceptor() {
        @Override
        public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
            ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
          if (call.metadata().headers().get("refuse-later") == null) {
            return next.startCall(call);
          }
          CompletableFuture.runAsync(
              () -> call.close(Status.of(Status.Code.PERMISSION_DENIED, "refused after a lookup")));
          return ServerInterceptors.ignoring();
        }
      };

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    BindableService echo = ServerInterceptors.intercept(new ReactorEchoServiceServer(new EchoImpl()), COUNTING, REFUSES_LATER);
    // tag::interceptors[]

    ServiceRegistry registry = ServiceRegistry.builder()
        // A call runs AddsMetadata, then Authenticating (the last listed runs first), then the handler.
        .add(ServerInterceptors.intercept(echo, new Authenticating(), new AddsMetadata()))
        .build();
    // end::interceptors[]
    var server = tcp.serve(registry);
    client = new ReactorEchoServiceClient(tcp.connect(server));
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  @BeforeEach
  void clear() {
    started.clear();
  }

  private static EchoRequest req(String text) {
    return EchoRequest.newBuilder().setText(text).build();
  }

  /** A request with enough bytes that a leaked one is a pooled buffer the leak detector tracks. */
  private static EchoRequest big(String text) {
    return req(text + "-" + "x".repeat(4096));
  }

  private static ReactorEchoServiceClient as(Headers headers, ResponseMetadataCapture capture) {
    return client.withOptions(CallOptions.DEFAULT.withHeaders(headers).withResponseMetadata(capture));
  }

  private static void assertRefused(ResponseMetadataCapture capture) {
    assertThat(capture.headers()).isEqualTo(Headers.of("server-id", "s1"));
    assertThat(capture.trailers()).isEqualTo(REALM.toBuilder().add("ended", "UNAUTHENTICATED").build());
  }

  @Test
  void callsWithoutTheTokenAreRefusedOnEveryMethodKindAndNoHandlerStarts() {
    ResponseMetadataCapture unary = new ResponseMetadataCapture();
    assertFailsWith(Status.Code.UNAUTHENTICATED, () -> as(Headers.EMPTY, unary).say(big("a")).block(WAIT))
        .hasMessageContaining("no valid token");
    assertRefused(unary);

    ResponseMetadataCapture stream = new ResponseMetadataCapture();
    assertFailsWith(
        Status.Code.UNAUTHENTICATED,
        () -> as(Headers.EMPTY, stream).repeat(big("b").toBuilder().setCount(3).build()).collectList().block(WAIT));
    assertRefused(stream);

    ResponseMetadataCapture clientStream = new ResponseMetadataCapture();
    assertFailsWith(
        Status.Code.UNAUTHENTICATED,
        () -> as(Headers.EMPTY, clientStream).join(Flux.just(big("c1"), big("c2"))).block(WAIT));
    assertRefused(clientStream);

    ResponseMetadataCapture bidi = new ResponseMetadataCapture();
    assertFailsWith(
        Status.Code.UNAUTHENTICATED,
        () -> as(Headers.EMPTY, bidi).chat(Flux.just(big("d1"), big("d2"))).collectList().block(WAIT));
    assertRefused(bidi);

    // A caller that reads no response metadata is refused the same way.
    assertFailsWith(Status.Code.UNAUTHENTICATED, () -> client.say(big("e")).block(WAIT));
    // A wrong token too, and a bidi call whose caller never ends its requests.
    assertFailsWith(
        Status.Code.UNAUTHENTICATED,
        () -> client.withOptions(CallOptions.DEFAULT.withHeaders(Headers.of("authorization", "Bearer nope")))
            .chat(Flux.concat(Flux.just(big("f")), Flux.never()))
            .collectList()
            .block(WAIT));

    assertThat(started).as("handlers started").isEmpty();
  }

  @Test
  void callsWithTheTokenReachTheHandlerAndReadTheHeaderAndTrailerOnEveryMethodKind() {
    ResponseMetadataCapture unary = new ResponseMetadataCapture();
    assertThat(as(TOKEN, unary).say(req("hi")).block(WAIT).getText()).isEqualTo("hi");
    assertCaptured(unary, "OK");

    ResponseMetadataCapture stream = new ResponseMetadataCapture();
    assertThat(as(TOKEN, stream).repeat(req("r").toBuilder().setCount(2).build()).map(EchoReply::getText)
            .collectList().block(WAIT))
        .containsExactly("r-0", "r-1");
    assertCaptured(stream, "OK");

    ResponseMetadataCapture clientStream = new ResponseMetadataCapture();
    assertThat(as(TOKEN, clientStream).join(Flux.just(req("a"), req("b"))).block(WAIT).getText()).isEqualTo("a+b");
    assertCaptured(clientStream, "OK");

    ResponseMetadataCapture bidi = new ResponseMetadataCapture();
    assertThat(as(TOKEN, bidi).chat(Flux.just(req("x"), req("y"))).map(EchoReply::getText).collectList().block(WAIT))
        .containsExactly("echo:x", "echo:y");
    assertCaptured(bidi, "OK");

    // A handler's own failure gets the trailer too, with its code.
    ResponseMetadataCapture failed = new ResponseMetadataCapture();
    assertFailsWith(
        Status.Code.NOT_FOUND,
        () -> as(TOKEN, failed).say(req("z").toBuilder().setAction("fail:5:gone").build()).block(WAIT));
    assertCaptured(failed, "NOT_FOUND");

    assertThat(started).containsOnlyKeys("Say", "Repeat", "Join", "Chat");
    assertThat(started.get("Say")).hasValue(2);
    for (String m : List.of("Repeat", "Join", "Chat")) {
      assertThat(started.get(m)).as(m).hasValue(1);
    }
  }

  @Test
  void aCallRefusedLaterFromAnotherThreadEndsWithItsStatusAndNoHandlerStarts() {
    ReactorEchoServiceClient refused =
        client.withOptions(CallOptions.DEFAULT.withHeaders(TOKEN.toBuilder().add("refuse-later", "1").build()));
    for (int i = 0; i < 20; i++) {
      int call = i;
      assertFailsWith(Status.Code.PERMISSION_DENIED, () -> refused.say(big("s" + call)).block(WAIT))
          .hasMessageContaining("refused after a lookup");
      assertFailsWith(
          Status.Code.PERMISSION_DENIED,
          () -> refused.chat(Flux.just(big("c" + call), big("d" + call))).collectList().block(WAIT));
      assertFailsWith(
          Status.Code.PERMISSION_DENIED,
          () -> refused.repeat(big("r" + call).toBuilder().setCount(2).build()).collectList().block(WAIT));
    }
    assertThat(started).as("handlers started").isEmpty();
  }

  private static void assertCaptured(ResponseMetadataCapture capture, String ended) {
    assertThat(capture.headers()).isEqualTo(Headers.of("server-id", "s1"));
    assertThat(capture.trailers()).isEqualTo(Headers.of("ended", ended));
  }
}
