package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BytesValue;
import com.google.protobuf.MessageLite;
import com.google.protobuf.StringValue;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * Response headers and trailers ({@link CallOptions#withResponseMetadata}) and calls without a
 * request message through Sluice's gRPC client: against grpc-java's server ({@link
 * GrpcJavaEchoServer}, whose every call sends header {@code x-reply: yes} and binary trailer {@code
 * x-trailer-bin}) and against Sluice's gRPC server with a service that sends its own through the
 * call model (including headers before a failure).
 */
class ResponseMetadataOverGrpcTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final byte[] TRAILER = {0, 1, (byte) 0xFE, (byte) 0xFF};

  private static GrpcChannel connect(int port) throws Exception {
    return GrpcClientTransport.create("127.0.0.1", port).connect().get(30, TimeUnit.SECONDS);
  }

  private static CallOptions capturing(ResponseMetadataCapture capture) {
    return CallOptions.DEFAULT.withResponseMetadata(capture);
  }

  private static void assertFromGrpcJava(ResponseMetadataCapture capture) {
    assertThat(capture.headers().get("x-reply")).isEqualTo("yes");
    assertThat(capture.trailers().getBinary("x-trailer-bin")).containsExactly(TRAILER);
    assertThat(capture.trailers().get("grpc-status")).as("the status is not metadata").isNull();
  }

  @Test
  void grpcJavasHeadersAndBinaryTrailerReachEveryKindOfCall() throws Exception {
    try (GrpcJavaEchoServer server = GrpcJavaEchoServer.h2c()) {
      GrpcChannel channel = connect(server.port());
      ReactorRequester requester = new ReactorRequester(channel);
      try {
        ResponseMetadataCapture unary = new ResponseMetadataCapture();
        assertThat(ReactorClientCalls.unary(requester, EchoMethods.UNARY, capturing(unary), StringValue.of("hi"))
                .block(WAIT).getValue())
            .isEqualTo("hi");
        assertFromGrpcJava(unary);

        // Exactly the 4 responses are asked for: the trailers still arrive, with the end.
        ResponseMetadataCapture stream = new ResponseMetadataCapture();
        List<BytesValue> got = new ArrayList<>();
        CountDownLatch completed = new CountDownLatch(1);
        ReactorClientCalls.serverStreaming(requester, EchoMethods.STREAM, capturing(stream), StringValue.of("4:8"))
            .subscribe(new BaseSubscriber<BytesValue>() {
              @Override
              protected void hookOnSubscribe(Subscription s) {
                s.request(4);
              }

              @Override
              protected void hookOnNext(BytesValue v) {
                got.add(v);
              }

              @Override
              protected void hookOnComplete() {
                completed.countDown();
              }
            });
        assertThat(completed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("completed").isTrue();
        assertThat(got).hasSize(4);
        assertFromGrpcJava(stream);

        // grpc-java answers a failure before any response trailers-only: no headers, the trailers.
        ResponseMetadataCapture failed = new ResponseMetadataCapture();
        assertThatThrownBy(() -> ReactorClientCalls.unary(requester, EchoMethods.UNARY, capturing(failed), StringValue.of("status:5:gone"))
                .block(WAIT))
            .isInstanceOfSatisfying(StatusException.class,
                e -> assertThat(e.status()).isEqualTo(Status.of(Status.Code.NOT_FOUND, "gone")));
        assertThat(failed.headers()).isNull();
        assertThat(failed.trailers().getBinary("x-trailer-bin")).containsExactly(TRAILER);

        ResponseMetadataCapture chat = new ResponseMetadataCapture();
        assertThat(ReactorClientCalls.bidiStreaming(requester, EchoMethods.CHAT, capturing(chat),
                Flux.just(StringValue.of("a"), StringValue.of("b"))).collectList().block(WAIT))
            .extracting(StringValue::getValue).containsExactly("echo:a", "echo:b");
        assertFromGrpcJava(chat);
      } finally {
        channel.dispose();
      }
    }
  }

  @Test
  void callsWithoutARequestMessageReachGrpcJava() throws Exception {
    try (GrpcJavaEchoServer server = GrpcJavaEchoServer.h2c()) {
      GrpcChannel channel = connect(server.port());
      ReactorRequester requester = new ReactorRequester(channel);
      try {
        assertThat(ReactorClientCalls.clientStreaming(requester, EchoMethods.SUM, CallOptions.DEFAULT, Flux.empty())
                .block(WAIT).getValue())
            .isEqualTo("0:0");
        assertThat(ReactorClientCalls.bidiStreaming(requester, EchoMethods.CHAT, CallOptions.DEFAULT, Flux.empty())
                .collectList().block(WAIT))
            .isEmpty();
        ResponseMetadataCapture capture = new ResponseMetadataCapture();
        assertThat(ReactorClientCalls.bidiStreaming(requester, EchoMethods.CHAT, capturing(capture), Flux.empty())
                .collectList().block(WAIT))
            .isEmpty();
        // No response message: grpc-java sent its headers with the trailers (trailers-only).
        assertThat(capture.trailers().getBinary("x-trailer-bin")).containsExactly(TRAILER);
      } finally {
        channel.dispose();
      }
    }
  }

  private static final Headers SLUICE_HEADERS = Headers.of("server-id", "s1");
  private static final Headers SLUICE_TRAILERS = Headers.builder().addBinary("cost-bin", new byte[] {7, 8}).build();

  /** Every call of {@code def} sends {@link #SLUICE_HEADERS} at once and ends with {@link #SLUICE_TRAILERS}. */
  private static ServiceDefinition sendingMetadata(ServiceDefinition def) {
    ServiceDefinition.Builder b = ServiceDefinition.builder(def.name());
    for (ServerMethodDefinition<?, ?> m : def.methods()) {
      add(b, m);
    }
    return b.build();
  }

  private static <Q extends MessageLite, R extends MessageLite> void add(
      ServiceDefinition.Builder b, ServerMethodDefinition<Q, R> m) {
    ServerCallHandler<Q, R> handler = m.handler();
    b.add(m.method(), call -> {
      call.sendHeaders(SLUICE_HEADERS);
      return handler.startCall(new ServerCall<Q, R>() {
        @Override
        public CallMetadata metadata() {
          return call.metadata();
        }

        @Override
        public MethodDescriptor<Q, R> method() {
          return call.method();
        }

        @Override
        public void request(long n) {
          call.request(n);
        }

        @Override
        public void sendMessage(R message) {
          call.sendMessage(message);
        }

        @Override
        public void close(Status status) {
          call.close(status, SLUICE_TRAILERS);
        }

        @Override
        public boolean isClosed() {
          return call.isClosed();
        }
      });
    });
  }

  @Test
  void sluiceServersHeadersComeWithAFailedStatusAndAnEmptyStream() throws Exception {
    EchoService service = new EchoService();
    ServiceDefinition def = service.registry().services().iterator().next();
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(ServiceRegistry.builder().add(sendingMetadata(def)).build())
            .start();
    GrpcChannel channel = connect(server.port());
    ReactorRequester requester = new ReactorRequester(channel);
    MethodDescriptor<StringValue, StringValue> unary =
        EchoService.method("Unary", MethodKind.UNARY, StringValue.parser(), StringValue.parser());
    MethodDescriptor<BytesValue, StringValue> sum =
        EchoService.method("Sum", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser());
    MethodDescriptor<BytesValue, BytesValue> chat =
        EchoService.method("Chat", MethodKind.BIDI_STREAMING, BytesValue.parser(), BytesValue.parser());
    try {
      ResponseMetadataCapture ok = new ResponseMetadataCapture();
      assertThat(ReactorClientCalls.unary(requester, unary, capturing(ok), StringValue.of("hi")).block(WAIT).getValue())
          .isEqualTo("hi");
      assertThat(ok.headers()).isEqualTo(SLUICE_HEADERS);
      assertThat(ok.trailers()).isEqualTo(SLUICE_TRAILERS);

      ResponseMetadataCapture failed = new ResponseMetadataCapture();
      assertThatThrownBy(() -> ReactorClientCalls.unary(requester, unary, capturing(failed), StringValue.of("status:10:stop"))
              .block(WAIT))
          .isInstanceOfSatisfying(StatusException.class,
              e -> assertThat(e.status()).isEqualTo(Status.of(Status.Code.ABORTED, "stop")));
      assertThat(failed.headers()).isEqualTo(SLUICE_HEADERS);
      assertThat(failed.trailers()).isEqualTo(SLUICE_TRAILERS);
      assertThat(failed.trailers().getBinary("cost-bin")).containsExactly(7, 8);

      ResponseMetadataCapture empty = new ResponseMetadataCapture();
      assertThat(ReactorClientCalls.clientStreaming(requester, sum, capturing(empty), Flux.empty()).block(WAIT).getValue())
          .startsWith("0");
      assertThat(empty.headers()).isEqualTo(SLUICE_HEADERS);
      assertThat(empty.trailers()).isEqualTo(SLUICE_TRAILERS);

      ResponseMetadataCapture emptyChat = new ResponseMetadataCapture();
      assertThat(ReactorClientCalls.bidiStreaming(requester, chat, capturing(emptyChat), Flux.empty()).collectList().block(WAIT))
          .isEmpty();
      assertThat(emptyChat.headers()).isEqualTo(SLUICE_HEADERS);
      assertThat(emptyChat.trailers()).isEqualTo(SLUICE_TRAILERS);
    } finally {
      channel.dispose();
      server.close();
      server.onClose().get(30, TimeUnit.SECONDS);
    }
  }
}
