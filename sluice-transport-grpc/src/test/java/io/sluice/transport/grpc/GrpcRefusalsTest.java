package io.sluice.transport.grpc;

import static io.sluice.transport.grpc.GrpcJavaClientTest.UNARY;
import static io.sluice.transport.grpc.GrpcJavaClientTest.codeOf;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.MessageLite;
import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Calls the server refuses before their request is in (an unknown method, an interceptor's
 * refusal), made by the thousand on one connection: each gets its status, and the connection
 * stays open, without a GOAWAY or a reset (the trailers-only answer does not reset the stream; the
 * request's DATA that follows is dropped, RFC 9113 8.1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcRefusalsTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private static final int CALLS = 1000;

  private GrpcServer.Running server;

  /** Refuses every call that carries {@code x-refuse}, as an auth check would. */
  private static final class Refuser implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      if (call.metadata().headers().get("x-refuse") != null) {
        return ServerInterceptors.reject(call, Status.of(Status.Code.UNAUTHENTICATED, "refused"));
      }
      return next.startCall(call);
    }
  }

  @BeforeAll
  void start() {
    ServiceRegistry echo = new EchoService().registry();
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(ServerInterceptors.intercept(echo.service(EchoService.NAME), new Refuser()))
            .build();
    server = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
    server.onClose().get(20, TimeUnit.SECONDS);
  }

  /** HEADERS without END_STREAM, then the request message in DATA with END_STREAM. */
  private static byte[] unaryCall(int streamId, String path, String... extra) {
    List<String> f = new ArrayList<>(List.of(
        ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", path,
        "content-type", "application/grpc", "te", "trailers"));
    f.addAll(List.of(extra));
    byte[] body = StringValue.of("hello").toByteArray();
    byte[] message = concat(ByteBuffer.allocate(5).put((byte) 0).putInt(body.length).array(), body);
    return concat(headers(streamId, false, Hpack.block(f.toArray(new String[0]))), data(streamId, true, message));
  }

  private void refusedByTheThousand(String path, String status, String... extra) throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      for (int round = 0; round < CALLS / 100; round++) {
        int base = round * 100;
        p.send(RawH2Peer.repeat(100, i -> unaryCall(2 * (base + i) + 1, path, extra)));
        assertThat(p.pingFence(round)).as("PING answered after %d calls", base + 100).isTrue();
      }
      p.await(x -> x.headers.size() >= CALLS || x.goAway != null, GUARD);
      assertThat(p.goAway).as("no GOAWAY").isNull();
      assertThat(p.resets).as("no stream reset").isEmpty();
      for (int i = 0; i < CALLS; i++) {
        assertThat(p.trailer(2 * i + 1, "grpc-status")).as("grpc-status of call %d", i).isEqualTo(status);
      }
      assertThat(p.closed).isFalse();
    }
  }

  @Test
  void aThousandCallsOfAnUnknownMethodKeepTheConnection() throws Exception {
    refusedByTheThousand("/" + EchoService.NAME + "/Nowhere", "12");
  }

  @Test
  void aThousandCallsAnInterceptorRefusesKeepTheConnection() throws Exception {
    refusedByTheThousand("/" + EchoService.NAME + "/Unary", "16", "x-refuse", "1");
  }

  @Test
  void grpcJavaKeepsItsConnectionThroughAThousandRefusals() throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("a")).getValue())
          .isEqualTo("a");
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
      AtomicBoolean left = new AtomicBoolean();
      channel.notifyWhenStateChanged(ConnectivityState.READY, () -> left.set(true));
      MethodDescriptor<StringValue, StringValue> nowhere =
          GrpcJavaClientTest.method(
              "Nowhere", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
      Metadata refuse = new Metadata();
      refuse.put(Metadata.Key.of("x-refuse", Metadata.ASCII_STRING_MARSHALLER), "1");
      io.grpc.Channel refused = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(refuse));
      for (int i = 0; i < CALLS; i++) {
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, nowhere, CallOptions.DEFAULT, StringValue.of("x"))))
            .as("call %d of an unknown method", i)
            .isEqualTo(io.grpc.Status.Code.UNIMPLEMENTED);
        assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(refused, UNARY, CallOptions.DEFAULT, StringValue.of("x"))))
            .as("refused call %d", i)
            .isEqualTo(io.grpc.Status.Code.UNAUTHENTICATED);
      }
      assertThat(ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("b")).getValue())
          .isEqualTo("b");
      // A GOAWAY would have taken the channel out of READY (to IDLE, then a new connection).
      assertThat(left).as("the channel left READY (its connection was closed)").isFalse();
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
