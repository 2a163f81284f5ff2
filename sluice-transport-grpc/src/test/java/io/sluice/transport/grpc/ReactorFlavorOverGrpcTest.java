package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.test.ClosedPort;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The reactor flavor's client call paths ({@link ReactorClientCalls}, what generated {@code
 * Reactor*Client}s call) against a stock grpc-java server over h2c, through a {@link GrpcChannel}.
 */
class ReactorFlavorOverGrpcTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private GrpcJavaEchoServer server;
  private GrpcChannel channel;
  private ReactorRequester requester;

  @BeforeEach
  void start() throws Exception {
    server = GrpcJavaEchoServer.h2c();
    channel =
        GrpcClientTransport.create("127.0.0.1", server.port())
            .withMaxInboundMessageSize(16 << 20)
            .connect()
            .get(30, TimeUnit.SECONDS);
    requester = new ReactorRequester(channel);
  }

  @AfterEach
  void stop() throws Exception {
    channel.dispose();
    server.close();
  }

  private StringValue unary(String text, CallOptions options) {
    return ReactorClientCalls.unary(requester, EchoMethods.UNARY, options, StringValue.of(text)).block(WAIT);
  }

  private static Status statusOf(Throwable t) {
    Throwable c = t instanceof CompletionException ? t.getCause() : t;
    assertThat(c).isInstanceOf(StatusException.class);
    return ((StatusException) c).status();
  }

  @Test
  void unaryEchoes() {
    assertThat(unary("hello", CallOptions.DEFAULT).getValue()).isEqualTo("hello");
    assertThat(unary("again", CallOptions.DEFAULT).getValue()).isEqualTo("again"); // same connection
  }

  @Test
  void emptyMessagesBothWays() {
    assertThat(unary("", CallOptions.DEFAULT)).isEqualTo(StringValue.getDefaultInstance());
    assertThat(unary("empty", CallOptions.DEFAULT)).isEqualTo(StringValue.getDefaultInstance());
  }

  @Test
  void multiMebibyteMessagesBothWays() {
    byte[] big = new byte[6 << 20];
    new Random(7).nextBytes(big);
    BytesValue answer =
        ReactorClientCalls.unary(requester, EchoMethods.BYTES, CallOptions.DEFAULT, BytesValue.of(ByteString.copyFrom(big)))
            .block(WAIT);
    assertThat(answer.getValue().toByteArray()).isEqualTo(big);
  }

  @Test
  void responseOverTheInboundLimitIsResourceExhausted() throws Exception {
    GrpcChannel small = GrpcClientTransport.create("127.0.0.1", server.port()).connect().get(30, TimeUnit.SECONDS);
    try {
      BytesValue request = BytesValue.of(ByteString.copyFrom(new byte[5 << 20])); // over the 4 MiB default
      assertThatThrownBy(
              () -> ReactorClientCalls.unary(new ReactorRequester(small), EchoMethods.BYTES, CallOptions.DEFAULT, request).block(WAIT))
          .satisfies(t -> {
            assertThat(statusOf(t).code()).as(statusOf(t).toString()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(statusOf(t).description()).contains("exceeds the limit of 4194304 bytes");
          });
      // The connection still serves calls.
      assertThat(ReactorClientCalls.unary(new ReactorRequester(small), EchoMethods.UNARY, CallOptions.DEFAULT, StringValue.of("ok")).block(WAIT).getValue())
          .isEqualTo("ok");
    } finally {
      small.dispose();
    }
  }

  @Test
  void statusAndMessageWithSpecialCharacters() {
    String message = "not here: 100% \t tab, CR\r\nLF, é and 😀 (non-BMP)";
    assertThatThrownBy(() -> unary("status:5:" + message, CallOptions.DEFAULT))
        .satisfies(t -> assertThat(statusOf(t)).isEqualTo(Status.of(Status.Code.NOT_FOUND, message)));
  }

  @Test
  void unknownMethodIsUnimplemented() {
    assertThatThrownBy(
            () -> ReactorClientCalls.unary(requester, EchoMethods.MISSING, CallOptions.DEFAULT, StringValue.of("x")).block(WAIT))
        .satisfies(t -> assertThat(statusOf(t).code()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void asciiAndBinaryHeadersReachTheServer() {
    Headers headers =
        Headers.builder()
            .add("x-ascii", "plain value")
            .addBinary("x-data-bin", new byte[] {0, 1, 2, (byte) 0xFF, 0x7F})
            .build();
    assertThat(unary("headers", CallOptions.DEFAULT.withHeaders(headers)).getValue())
        .isEqualTo("x-ascii=plain value;x-data-bin=000102ff7f;te=null;user-agent=sluice-grpc-java");
  }

  @Test
  void requestHeadersOverTheServersLimitFailTheCallNotTheConnection() {
    assertThat(unary("warm", CallOptions.DEFAULT).getValue()).isEqualTo("warm"); // SETTINGS seen
    Headers big = Headers.of("x-big", "b".repeat(20_000)); // grpc-java takes 8 KiB of metadata
    assertThatThrownBy(() -> unary("x", CallOptions.DEFAULT.withHeaders(big)))
        .satisfies(
            t ->
                assertThat(statusOf(t))
                    .isEqualTo(
                        Status.of(
                            Status.Code.INTERNAL,
                            "the call's request HEADERS could not be sent: the server takes header lists of up to 8192 bytes")));
    assertThat(unary("after", CallOptions.DEFAULT).getValue()).isEqualTo("after");
  }

  @Test
  void deadlineExceededAndTheServerSeesTheCancel() throws Exception {
    assertThatThrownBy(() -> unary("sleep", CallOptions.DEFAULT.withTimeout(Duration.ofMillis(300))))
        .satisfies(t -> assertThat(statusOf(t).code()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(server.cancelled.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void cancelReachesTheServer() throws Exception {
    Disposable call =
        ReactorClientCalls.serverStreaming(requester, EchoMethods.FOREVER, CallOptions.DEFAULT, StringValue.of("x"))
            .subscribe();
    assertThat(server.started.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(server.cancelled.getCount()).isEqualTo(1);
    call.dispose();
    assertThat(server.cancelled.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void gzipResponsesAreDecoded() {
    assertThat(unary("gzip:squeezed " + "a".repeat(1000), CallOptions.DEFAULT).getValue())
        .isEqualTo("squeezed " + "a".repeat(1000));
    List<BytesValue> all =
        ReactorClientCalls.serverStreaming(requester, EchoMethods.STREAM, CallOptions.DEFAULT, StringValue.of("5:70000:gzip"))
            .collectList()
            .block(WAIT);
    assertThat(all).hasSize(5).allSatisfy(v -> assertThat(v.getValue().size()).isEqualTo(70000));
  }

  @Test
  void serverStreamingIsPacedByDemand() throws Exception {
    int count = 100;
    int size = 256 * 1024;
    StepVerifier.create(
            ReactorClientCalls.serverStreaming(requester, EchoMethods.STREAM, CallOptions.DEFAULT, StringValue.of(count + ":" + size)),
            1)
        .assertNext(v -> assertThat(v.getValue().byteAt(0)).isEqualTo((byte) 0))
        .then(
            () -> {
              try {
                // The server stops when the client's window is shut: the client took one message and
                // holds at most a 1 MiB stream window, so the server wrote only a few of the 100
                // (256 KiB each). The embedded ClientCallInboundTest checks the window exactly.
                assertThat(server.streamBlocked.await(30, TimeUnit.SECONDS)).isTrue();
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
              // A client that gave bytes back without demand would let the server run on to 100.
              assertThat(server.sent.get()).isLessThanOrEqualTo(8);
            })
        .thenRequest(Long.MAX_VALUE)
        .expectNextCount(count - 1)
        .expectComplete()
        .verify(WAIT);
    assertThat(server.sent.get()).isEqualTo(count);
  }

  @Test
  void clientStreaming() {
    Flux<BytesValue> requests = Flux.range(0, 20).map(i -> BytesValue.of(ByteString.copyFrom(new byte[100_000])));
    assertThat(ReactorClientCalls.clientStreaming(requester, EchoMethods.SUM, CallOptions.DEFAULT, requests).block(WAIT).getValue())
        .isEqualTo("20:2000000");
  }

  @Test
  void clientStreamingOfManyMebibytesIsPacedByTheServersWindow() {
    Flux<BytesValue> requests = Flux.range(0, 16).map(i -> BytesValue.of(ByteString.copyFrom(new byte[1 << 20])));
    assertThat(ReactorClientCalls.clientStreaming(requester, EchoMethods.SUM, CallOptions.DEFAULT, requests).block(WAIT).getValue())
        .isEqualTo("16:" + (16L << 20));
  }

  @Test
  void bidiStreaming() {
    List<String> answers =
        ReactorClientCalls.bidiStreaming(
                requester, EchoMethods.CHAT, CallOptions.DEFAULT, Flux.just("a", "b", "c").map(StringValue::of))
            .map(StringValue::getValue)
            .collectList()
            .block(WAIT);
    assertThat(answers).containsExactly("echo:a", "echo:b", "echo:c");
  }

  @Test
  void nothingListeningIsUnavailable() throws Exception {
    try (ClosedPort closed = ClosedPort.any()) {
      int closedPort = closed.port();
      assertThatThrownBy(() -> GrpcClientTransport.create("127.0.0.1", closedPort).connect().join())
          .satisfies(
              t -> {
                assertThat(statusOf(t).code()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(statusOf(t).description()).startsWith("cannot connect to the gRPC server at 127.0.0.1:" + closedPort);
              });
    }
  }

  @Test
  void callsAfterTheServerStoppedAreUnavailable() throws Exception {
    assertThat(unary("before", CallOptions.DEFAULT).getValue()).isEqualTo("before");
    server.close();
    channel.onClose().get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> unary("after", CallOptions.DEFAULT))
        .satisfies(t -> assertThat(statusOf(t).code()).isEqualTo(Status.Code.UNAVAILABLE));
  }
}
