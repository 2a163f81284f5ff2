package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** Sluice's gRPC client calls Sluice's gRPC server ({@link GrpcServer} serving {@link EchoService}). */
class SluiceClientToSluiceServerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final MethodDescriptor<StringValue, StringValue> UNARY =
      EchoService.method("Unary", MethodKind.UNARY, StringValue.parser(), StringValue.parser());
  private static final MethodDescriptor<BytesValue, BytesValue> BYTES =
      EchoService.method("Bytes", MethodKind.UNARY, BytesValue.parser(), BytesValue.parser());
  private static final MethodDescriptor<StringValue, StringValue> HANG =
      EchoService.method("Hang", MethodKind.UNARY, StringValue.parser(), StringValue.parser());
  private static final MethodDescriptor<StringValue, BytesValue> COUNT =
      EchoService.method("Count", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser());
  private static final MethodDescriptor<BytesValue, StringValue> SUM =
      EchoService.method("Sum", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser());
  private static final MethodDescriptor<BytesValue, BytesValue> CHAT =
      EchoService.method("Chat", MethodKind.BIDI_STREAMING, BytesValue.parser(), BytesValue.parser());

  private EchoService service;
  private GrpcServer.Running server;
  private GrpcChannel channel;
  private ReactorRequester requester;

  @BeforeEach
  void start() throws Exception {
    service = new EchoService();
    server = GrpcServer.create("127.0.0.1", 0).withServices(service.registry()).start();
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
    server.onClose().get(30, TimeUnit.SECONDS);
  }

  @Test
  void unaryAndStatus() {
    assertThat(ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, StringValue.of("hi")).block(WAIT).getValue())
        .isEqualTo("hi");
    String message = "gone: 50% \r\n 😀";
    assertThatThrownBy(
            () -> ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, StringValue.of("status:10:" + message)).block(WAIT))
        .isInstanceOf(StatusException.class)
        .satisfies(e -> assertThat(((StatusException) e).status()).isEqualTo(Status.of(Status.Code.ABORTED, message)));
  }

  @Test
  void eightMebibytes() {
    byte[] big = new byte[8 << 20];
    new Random(3).nextBytes(big);
    BytesValue answer =
        ReactorClientCalls.unary(requester, BYTES, CallOptions.DEFAULT, BytesValue.of(ByteString.copyFrom(big))).block(WAIT);
    assertThat(answer.getValue().toByteArray()).isEqualTo(big);
  }

  @Test
  void deadlineCancelsTheHandler() throws Exception {
    assertThatThrownBy(
            () -> ReactorClientCalls.unary(requester, HANG, CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)), StringValue.of("x")).block(WAIT))
        .isInstanceOf(StatusException.class)
        .satisfies(e -> assertThat(((StatusException) e).status().code()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(service.hangCancelled.get(30, TimeUnit.SECONDS).code()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void streamingEveryWay() {
    assertThat(ReactorClientCalls.serverStreaming(requester, COUNT, CallOptions.DEFAULT, StringValue.of("50:1000")).count().block(WAIT))
        .isEqualTo(50);
    Flux<BytesValue> requests = Flux.range(0, 10).map(i -> BytesValue.of(ByteString.copyFrom(new byte[10_000])));
    assertThat(ReactorClientCalls.clientStreaming(requester, SUM, CallOptions.DEFAULT, requests).block(WAIT).getValue())
        .contains("10").contains("100000");
    assertThat(
            ReactorClientCalls.bidiStreaming(
                    requester, CHAT, CallOptions.DEFAULT, Flux.range(0, 20).map(i -> BytesValue.of(ByteString.copyFrom(new byte[] {i.byteValue()}))))
                .map(v -> (int) v.getValue().byteAt(0))
                .collectList()
                .block(WAIT))
        .hasSize(20)
        .startsWith(0, 1, 2);
  }
}
