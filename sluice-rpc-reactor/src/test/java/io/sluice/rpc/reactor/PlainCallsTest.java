package io.sluice.rpc.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BytesValue;
import com.google.protobuf.ByteString;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.rpc.rsocket.RpcErrors;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The client's fast path (no timeout, no instrumentation) against a raw server that answers with
 * good, undecodable and failed responses: values, INTERNAL for bytes that are not the response
 * type (the call is cancelled), statuses from the wire, and nothing leaked.
 */
class PlainCallsTest {
  private static final Duration WAIT = Duration.ofSeconds(10); // hang guard only
  private static final byte[] GARBAGE = {(byte) 0x0A, 0x7F, 1};

  private static final MethodDescriptor<BytesValue, BytesValue> UNARY = method("Unary", MethodKind.UNARY);
  private static final MethodDescriptor<BytesValue, BytesValue> STREAM =
      method("Stream", MethodKind.SERVER_STREAMING);

  private static ServerTransport.Bound server;
  private static ReactorRequester requester;

  private static MethodDescriptor<BytesValue, BytesValue> method(String name, MethodKind kind) {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service("test.Raw")
        .method(name)
        .kind(kind)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  /** The request's value says what to answer: "ok", "garbage" or "fail". */
  private static String mode(Message request) {
    try {
      return ProtoMessages.parse(BytesValue.parser(), request.data()).getValue().toStringUtf8();
    } finally {
      request.release();
    }
  }

  private static Message answer(String text) {
    return bytes(BytesValue.of(ByteString.copyFromUtf8(text)).toByteArray());
  }

  /** From the pooled allocator, which the leak detector tracks: a dropped message fails the class. */
  private static Message bytes(byte[] b) {
    return Message.of(PooledByteBufAllocator.DEFAULT.buffer(b.length).writeBytes(b));
  }

  @BeforeAll
  static void start() {
    ReactorResponder responder =
        new ReactorResponder() {
          @Override
          public Mono<Message> requestResponse(Message request) {
            switch (mode(request)) {
              case "garbage":
                return Mono.just(bytes(GARBAGE));
              case "fail":
                return Mono.error(RpcErrors.toWire(Status.of(Status.Code.NOT_FOUND, "no such thing")));
              case "empty": // legal RSocket: COMPLETE without NEXT
                return Mono.empty();
              case "badmd": // response metadata that is not a response metadata block
                return Mono.just(
                    Message.of(
                        PooledByteBufAllocator.DEFAULT.buffer(2).writeByte(9).writeByte(0),
                        PooledByteBufAllocator.DEFAULT.buffer(0)));
              default:
                return Mono.just(answer("pong"));
            }
          }

          @Override
          public Flux<Message> requestStream(Message request) {
            String mode = mode(request);
            Flux<Message> good = Flux.range(0, 3).map(i -> answer("item" + i));
            if (mode.equals("garbage")) {
              return good.concatWith(
                  Flux.range(0, 5).map(i -> bytes(GARBAGE)));
            }
            return good;
          }
        };
    server = SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0)).responder(responder).bind().block(WAIT);
    int port = ((InetSocketAddress) server.address()).getPort();
    requester = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT);
  }

  @AfterAll
  static void stop() {
    requester.dispose();
    server.close();
  }

  private static BytesValue req(String mode) {
    return BytesValue.of(ByteString.copyFromUtf8(mode));
  }

  @Test
  void unaryValue() {
    BytesValue v = ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, req("ok")).block(WAIT);
    assertThat(v.getValue().toStringUtf8()).isEqualTo("pong");
  }

  @Test
  void unaryResponseThatIsNotTheTypeIsInternal() {
    assertThatThrownBy(() -> ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, req("garbage")).block(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
  }

  @Test
  void unaryFailureCarriesTheStatusFromTheWire() {
    assertThatThrownBy(() -> ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, req("fail")).block(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.status().description()).isEqualTo("no such thing");
            });
  }

  /**
   * A request-response answered with COMPLETE and no NEXT (legal RSocket, from a foreign or buggy
   * peer) is not a unary answer: INTERNAL, as grpc-java says "No value received for unary call",
   * on the fast path and on the general one (a timeout takes it), never an empty success.
   */
  @Test
  void unaryCompletedWithoutAResponseIsInternal() {
    for (CallOptions o : new CallOptions[] {CallOptions.DEFAULT, CallOptions.DEFAULT.withTimeout(WAIT)}) {
      assertThatThrownBy(() -> ReactorClientCalls.unary(requester, UNARY, o, req("empty")).block(WAIT))
          .as("%s", o)
          .isInstanceOfSatisfying(
              StatusException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL);
                assertThat(e.status().description()).contains("without a response");
              });
    }
  }

  /** ResponseMetadataListener's contract: onTrailers once when the call ends, whatever its status. */
  @Test
  void aCallFailedByBadResponseMetadataStillGivesItsTrailers() {
    io.sluice.rpc.ResponseMetadataCapture capture = new io.sluice.rpc.ResponseMetadataCapture();
    assertThatThrownBy(
            () ->
                ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT.withResponseMetadata(capture), req("badmd"))
                    .block(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
    assertThat(capture.trailers()).isEqualTo(io.sluice.rpc.Headers.EMPTY);
  }

  @Test
  void streamValues() {
    List<String> got =
        ReactorClientCalls.serverStreaming(requester, STREAM, CallOptions.DEFAULT, req("ok"))
            .map(v -> v.getValue().toStringUtf8())
            .collectList()
            .block(WAIT);
    assertThat(got).containsExactly("item0", "item1", "item2");
  }

  @Test
  void streamStopsAtTheFirstUndecodableMessageWithInternal() {
    List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
    assertThatThrownBy(
            () ->
                ReactorClientCalls.serverStreaming(requester, STREAM, CallOptions.DEFAULT, req("garbage"))
                    .doOnNext(v -> got.add(v.getValue().toStringUtf8()))
                    .blockLast(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
    assertThat(got).containsExactly("item0", "item1", "item2");
  }

  @Test
  void eachSubscriptionIsANewCall() {
    Mono<BytesValue> call = ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, req("ok"));
    assertThat(call.block(WAIT)).isEqualTo(call.block(WAIT));
  }
}
