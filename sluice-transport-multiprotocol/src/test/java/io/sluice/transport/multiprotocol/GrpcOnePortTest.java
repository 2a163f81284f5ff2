package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * gRPC on the one port: grpc-java clients over h2c and over TLS (ALPN h2) call a Sluice service
 * served by {@link MultiProtocolServerTransport#withHttpRoutes}, while RSocket clients keep being served
 * on the same port.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class GrpcOnePortTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER_TLS = Tls.server(CERT).alpn("h2", "http/1.1").build();
  private static final String SERVICE = "sluice.test.OnePort";

  private static final MethodDescriptor<StringValue, StringValue> HELLO =
      grpcMethod("Hello", MethodDescriptor.MethodType.UNARY);
  private static final MethodDescriptor<StringValue, StringValue> COUNT =
      grpcMethod("Count", MethodDescriptor.MethodType.SERVER_STREAMING);

  private static ServerTransport.Bound server;
  private static int port;

  private static MethodDescriptor<StringValue, StringValue> grpcMethod(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<StringValue, StringValue>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .build();
  }

  private static io.sluice.rpc.MethodDescriptor<StringValue, StringValue> sluiceMethod(String name, MethodKind kind) {
    return io.sluice.rpc.MethodDescriptor.<StringValue, StringValue>builder()
        .service(SERVICE)
        .method(name)
        .kind(kind)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  /** Answers each request with the responses {@code answer} gives, as the peer allows them. */
  private static io.sluice.rpc.ServerCallHandler<StringValue, StringValue> handler(
      Function<String, List<String>> answer) {
    return call -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        final List<String> out = new ArrayList<>();
        long credit;
        boolean got;

        @Override
        public void onMessage(StringValue m) {
          got = true;
          out.addAll(answer.apply(m.getValue()));
          pump();
        }

        @Override
        public void onReady(long n) {
          credit += n;
          pump();
        }

        private void pump() {
          while (got && credit > 0 && !out.isEmpty()) {
            credit--;
            call.sendMessage(StringValue.of(out.remove(0)));
          }
          if (got && out.isEmpty()) {
            call.close(Status.OK);
          }
        }

        @Override
        public void onHalfClose() {}

        @Override
        public void onCancel() {}
      };
    };
  }

  @BeforeAll
  static void bind() {
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(
                ServiceDefinition.builder(SERVICE)
                    .add(sluiceMethod("Hello", MethodKind.UNARY), handler(s -> List.of("hello " + s)))
                    .add(
                        sluiceMethod("Count", MethodKind.SERVER_STREAMING),
                        handler(s -> List.of(s + "0", s + "1", s + "2")))
                    .build())
            .build();
    // tag::one-port[]
    // RSocket (TCP, WebSocket, HTTP/2) and gRPC clients on one port; TLS offers ALPN h2.
    MultiProtocolServerTransport transport =
        MultiProtocolServerTransport.create("127.0.0.1", 0)
            .withSsl(SERVER_TLS)
            .withHttpRoutes(GrpcServices.of(registry).httpRoutes()); // GrpcServices.of(registry).with...
    // end::one-port[]
    server =
        SluiceServer.builder(transport)
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    return Mono.fromSupplier(() -> Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + take(request)));
                  }
                })
            .bind()
            .block(WAIT);
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  static void close() {
    server.close();
    server.onClose().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
  }

  static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  private static void callBoth(ManagedChannel channel) throws InterruptedException {
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, HELLO, CallOptions.DEFAULT, StringValue.of("grpc")).getValue())
          .isEqualTo("hello grpc");
      Iterator<StringValue> it = ClientCalls.blockingServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, StringValue.of("n"));
      List<String> got = new ArrayList<>();
      it.forEachRemaining(v -> got.add(v.getValue()));
      assertThat(got).containsExactly("n0", "n1", "n2");
      MethodDescriptor<StringValue, StringValue> missing = grpcMethod("Missing", MethodDescriptor.MethodType.UNARY);
      StatusRuntimeException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              StatusRuntimeException.class,
              () -> ClientCalls.blockingUnaryCall(channel, missing, CallOptions.DEFAULT, StringValue.of("x")));
      assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNIMPLEMENTED);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void grpcOverH2c() throws Exception {
    callBoth(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  @Test
  void grpcOverTls() throws Exception {
    TlsChannelCredentials.Builder creds =
        TlsChannelCredentials.newBuilder()
            .trustManager(new ByteArrayInputStream(CERT.certificatePem().getBytes(StandardCharsets.US_ASCII)));
    callBoth(Grpc.newChannelBuilderForAddress("127.0.0.1", port, creds.build()).build());
  }

  @Test
  void rsocketOverHttp2StillServedOnThePort() {
    ReactorRequester client = SluiceClient.builder(Http2ClientTransport.create("127.0.0.1", port)).connect().block(WAIT);
    try {
      Message reply = client.requestResponse(Message.utf8(client.alloc(), "h2")).block(WAIT);
      assertThat(take(reply)).isEqualTo("echo:h2");
    } finally {
      client.dispose();
      client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
    }
  }

  @Test
  void describesItself() {
    assertThat(MultiProtocolServerTransport.create("127.0.0.1", 0).withHttpRoutes(GrpcServices.of(ServiceRegistry.builder().build()).httpRoutes()).toString())
        .contains("grpc");
  }
}
